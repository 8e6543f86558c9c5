import type { Pool } from 'pg';
import { migrate } from '@once/postgres';
import type { Migration, MigrationResult } from '@once/postgres';

// Version 1: the tables, then the append functions (one stream; several streams atomically). Later changes get
// versions 2, 3, …; a function that a later version replaces is written once (below), and every version that creates
// or replaces it runs that one text, so a new database and an upgraded one end with the same function.
const schema = `
-- A stream's head and its retention in one row. revision -1: no event yet, the row only carries a retention set
-- before the first append (the stream still reads and appends as absent). Retention: none (both NULL), events
-- older than max_age_seconds (>= 0), or revisions below truncate_before (>= 0), never both. The adapter validates
-- a retention before any statement (assertValidRetention), so these columns carry no CHECK constraints, which
-- every head move would evaluate.
CREATE TABLE streams (
  stream text PRIMARY KEY,
  revision bigint NOT NULL CHECK (revision >= -1),
  max_age_seconds double precision,
  truncate_before bigint
);

-- Reads probe a stream's retention for every event they return: through this index of only the streams that have
-- one, a stream without retention costs an empty probe (as a separate retention table did), not a heap visit.
CREATE INDEX streams_with_retention ON streams (stream)
  WHERE max_age_seconds IS NOT NULL OR truncate_before IS NOT NULL;

CREATE TABLE events (
  global_position bigint GENERATED ALWAYS AS IDENTITY,
  transaction_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
  stream text NOT NULL,
  revision bigint NOT NULL CHECK (revision >= 0),
  event_id uuid NOT NULL,
  type text NOT NULL,
  data jsonb NOT NULL,
  metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
  recorded_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT events_stream_revision UNIQUE (stream, revision),
  CONSTRAINT events_stream_event_id UNIQUE (stream, event_id)
);

CREATE INDEX events_global_order ON events (transaction_id, global_position);

-- Sets a stream's retention (replacing an earlier one) when the append that carries it succeeds, in its transaction.
-- p_retention: NULL or JSON null (leave it), {"maxAgeSeconds": n} or {"truncateBefore": "n"}.
CREATE FUNCTION event_store_keep(p_stream text, p_retention jsonb) RETURNS void
LANGUAGE sql AS $fn$
  INSERT INTO streams (stream, revision, max_age_seconds, truncate_before)
  SELECT p_stream, -1, (p_retention->>'maxAgeSeconds')::double precision, (p_retention->>'truncateBefore')::bigint
   WHERE jsonb_typeof(p_retention) = 'object'
  ON CONFLICT (stream) DO UPDATE SET max_age_seconds = excluded.max_age_seconds, truncate_before = excluded.truncate_before
$fn$;
`;

// One stream's append. Version 1 creates it, version 6 replaces it.
const appendFunction = (create: 'CREATE' | 'CREATE OR REPLACE') => `
-- p_expected: a revision >= 0, or -1 no_stream, -2 any, -4 stream_exists (EventStoreDB's wire constants).
-- One call appends one stream's events. Fast paths first, taken when nothing unusual is going on: a new stream at
-- no_stream inserts its row directly, and an explicit revision whose ids are not in the stream yet moves the head
-- with one conditional UPDATE. Anything else (a conflict, a re-append, any / stream_exists) takes the locked path:
-- lock the stream row, answer a re-append of ids already in the stream (all at consecutive revisions: the original
-- result; some: wrong revision), enforce the expectation, then write. A re-append racing its original past the
-- unlocked id probe is stopped by UNIQUE (stream, event_id); the adapter retries such a statement once, and the
-- locked path then answers it. p_retention, when given, is set by event_store_keep in the same statement whenever
-- the append succeeds. Outcome 'ok' | 'idempotent' | 'wrong' (revision = the actual one, NULL for no stream).
${create} FUNCTION event_store_append(
  p_stream text, p_expected bigint, p_events jsonb, p_now timestamptz, p_retention jsonb DEFAULT NULL
)
RETURNS TABLE (outcome text, revision bigint, transaction_id text, global_position bigint)
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
  v_count bigint := jsonb_array_length(p_events);
  v_current bigint;
  v_found bigint;
  v_aligned boolean;
  v_last bigint;
  v_tx xid8;
  v_gp bigint;
  v_kept boolean := false;
BEGIN
  -- Fast paths, taken when nothing unusual is going on: a new stream at no_stream, or an explicit revision that
  -- matches and none of the ids in the stream yet. Anything else falls through to the locked path below.
  IF v_count > 0 AND p_expected = -1 AND p_retention IS NULL THEN
    INSERT INTO streams (stream, revision) VALUES (p_stream, v_count - 1) ON CONFLICT DO NOTHING;
    IF FOUND THEN
      v_current := -1;
    END IF;
  ELSIF v_count > 0 AND p_expected = -1 THEN
    INSERT INTO streams (stream, revision, max_age_seconds, truncate_before)
    VALUES (p_stream, v_count - 1, (p_retention->>'maxAgeSeconds')::double precision,
            (p_retention->>'truncateBefore')::bigint)
    ON CONFLICT DO NOTHING;
    IF FOUND THEN
      v_current := -1;
      v_kept := true;
    END IF;
  ELSIF v_count > 0 AND p_expected >= 0 THEN
    PERFORM 1 FROM jsonb_array_elements(p_events) AS i(value)
      CROSS JOIN LATERAL (SELECT 1 FROM events e
                           WHERE e.stream = p_stream AND e.event_id = (i.value->>'id')::uuid LIMIT 1) AS known;
    IF NOT FOUND THEN
      UPDATE streams s SET revision = p_expected + v_count WHERE s.stream = p_stream AND s.revision = p_expected;
      IF FOUND THEN
        v_current := p_expected;
      END IF;
    END IF;
  END IF;

  WHILE v_current IS NULL LOOP
    SELECT s.revision INTO v_current FROM streams s WHERE s.stream = p_stream FOR UPDATE;
    IF FOUND AND v_current = -1 THEN
      -- A row that only carries a retention: the stream is still absent, and the first append takes the row over.
      IF p_expected >= 0 OR p_expected = -4 THEN
        RETURN QUERY SELECT 'wrong'::text, NULL::bigint, NULL::text, NULL::bigint;
        RETURN;
      END IF;
      IF v_count = 0 THEN
        IF p_retention IS NOT NULL THEN
          PERFORM event_store_keep(p_stream, p_retention);
        END IF;
        RETURN QUERY SELECT 'ok'::text, -1::bigint, '0'::text, 0::bigint;
        RETURN;
      END IF;
      UPDATE streams s SET revision = v_count - 1 WHERE s.stream = p_stream;
    ELSIF FOUND THEN
      IF v_count > 0 THEN
        SELECT count(*), coalesce(min(known.revision - i.ord) = max(known.revision - i.ord), false),
               max(known.revision)
          INTO v_found, v_aligned, v_last
          FROM jsonb_array_elements(p_events) WITH ORDINALITY AS i(value, ord)
          CROSS JOIN LATERAL (SELECT e.revision FROM events e
                               WHERE e.stream = p_stream AND e.event_id = (i.value->>'id')::uuid LIMIT 1) AS known;
        IF v_found > 0 THEN
          IF v_found = v_count AND v_aligned THEN
            SELECT e.transaction_id, e.global_position INTO v_tx, v_gp
              FROM events e WHERE e.stream = p_stream AND e.revision = v_last;
            IF p_retention IS NOT NULL THEN
              PERFORM event_store_keep(p_stream, p_retention);
            END IF;
            RETURN QUERY SELECT 'idempotent'::text, v_last, v_tx::text, v_gp;
          ELSE
            RETURN QUERY SELECT 'wrong'::text, v_current, NULL::text, NULL::bigint;
          END IF;
          RETURN;
        END IF;
      END IF;
      IF p_expected = -1 OR (p_expected >= 0 AND p_expected <> v_current) THEN
        RETURN QUERY SELECT 'wrong'::text, v_current, NULL::text, NULL::bigint;
        RETURN;
      END IF;
      IF v_count = 0 THEN
        SELECT e.transaction_id, e.global_position INTO v_tx, v_gp
          FROM events e WHERE e.stream = p_stream ORDER BY e.revision DESC LIMIT 1;
        IF p_retention IS NOT NULL THEN
          PERFORM event_store_keep(p_stream, p_retention);
        END IF;
        RETURN QUERY SELECT 'ok'::text, v_current, coalesce(v_tx::text, '0'), coalesce(v_gp, 0::bigint);
        RETURN;
      END IF;
      UPDATE streams s SET revision = v_current + v_count WHERE s.stream = p_stream;
    ELSE
      IF p_expected >= 0 OR p_expected = -4 THEN
        RETURN QUERY SELECT 'wrong'::text, NULL::bigint, NULL::text, NULL::bigint;
        RETURN;
      END IF;
      IF v_count = 0 THEN
        IF p_retention IS NOT NULL THEN
          PERFORM event_store_keep(p_stream, p_retention);
        END IF;
        RETURN QUERY SELECT 'ok'::text, -1::bigint, '0'::text, 0::bigint;
        RETURN;
      END IF;
      INSERT INTO streams (stream, revision) VALUES (p_stream, v_count - 1) ON CONFLICT DO NOTHING;
      IF FOUND THEN
        v_current := -1;
      END IF;
      -- Not found: another writer created the stream meanwhile; its row is committed now: decide again.
    END IF;
  END LOOP;

  WITH inserted AS (
    INSERT INTO events (stream, revision, event_id, type, data, metadata, recorded_at)
    SELECT p_stream, v_current + i.ord, (i.value->>'id')::uuid, i.value->>'type', i.value->'data',
           coalesce(i.value->'metadata', '{}'::jsonb), coalesce(p_now, now())
      FROM jsonb_array_elements(p_events) WITH ORDINALITY AS i(value, ord)
     ORDER BY i.ord
    RETURNING events.global_position
  )
  SELECT max(inserted.global_position) INTO v_gp FROM inserted;
  IF p_retention IS NOT NULL AND NOT v_kept THEN
    PERFORM event_store_keep(p_stream, p_retention);
  END IF;
  RETURN QUERY SELECT 'ok'::text, v_current + v_count, pg_current_xact_id()::text, v_gp;
END
$fn$;
`;

// appendMulti's function. Version 1 creates it, version 6 replaces it.
const appendMultiFunction = (create: 'CREATE' | 'CREATE OR REPLACE') => `
-- appendMulti as one statement (one round trip, its own transaction): streams are appended in name order, so
-- concurrent multi-stream appends lock rows in one order; a wrong revision, or a write that repeats some streams and
-- is new for others, raises and rolls the whole statement back (retention included). The raise carries the stream's
-- index and actual revision as JSON in DETAIL.
-- The common case takes a lighter path: a stream with events at no_stream or at an explicit revision whose ids are
-- not in it yet moves its head and inserts its events here (the same fast steps as event_store_append, and its
-- retention in the same pass). Any other stream (a miss of the fast step,
-- any / stream_exists, no events, ids already there) is handed to event_store_append, which decides it in full. A
-- fast stream's row is locked by its own INSERT or UPDATE until commit, so deferring its events changes nothing
-- another writer can see.
${create} FUNCTION event_store_append_multi(p_appends jsonb, p_now timestamptz)
RETURNS TABLE (ord integer, outcome text, revision bigint, transaction_id text, global_position bigint)
LANGUAGE plpgsql AS $fn$
DECLARE
  v_item record;
  v_result record;
  v_ords integer[] := '{}';
  v_outcomes text[] := '{}';
  v_revisions bigint[] := '{}';
  v_transactions text[] := '{}';
  v_positions bigint[] := '{}';
  v_repeated integer;
  v_wrote boolean := false;
  v_actual bigint;
  v_count bigint;
  v_expected bigint;
  v_current bigint;
  v_gp bigint;
  v_kept boolean;
BEGIN
  FOR v_item IN
    SELECT a.value, a.ordinality::integer AS ord
      FROM jsonb_array_elements(p_appends) WITH ORDINALITY AS a
     ORDER BY a.value->>'stream' COLLATE "C"
  LOOP
    v_count := jsonb_array_length(v_item.value->'events');
    v_expected := (v_item.value->>'expected')::bigint;
    v_current := NULL;
    v_kept := false;
    IF v_count > 0 AND v_expected = -1 THEN
      INSERT INTO streams (stream, revision, max_age_seconds, truncate_before)
      VALUES (v_item.value->>'stream', v_count - 1, (v_item.value->'retention'->>'maxAgeSeconds')::double precision,
              (v_item.value->'retention'->>'truncateBefore')::bigint)
      ON CONFLICT DO NOTHING;
      IF FOUND THEN
        v_current := -1;
        v_kept := true;
      END IF;
    ELSIF v_count > 0 AND v_expected >= 0 THEN
      PERFORM 1 FROM jsonb_array_elements(v_item.value->'events') AS i(value)
        CROSS JOIN LATERAL (SELECT 1 FROM events e
                             WHERE e.stream = v_item.value->>'stream' AND e.event_id = (i.value->>'id')::uuid
                             LIMIT 1) AS known;
      IF NOT FOUND THEN
        UPDATE streams s SET revision = v_expected + v_count
         WHERE s.stream = v_item.value->>'stream' AND s.revision = v_expected;
        IF FOUND THEN
          v_current := v_expected;
        END IF;
      END IF;
    END IF;
    IF v_current IS NOT NULL THEN
      WITH inserted AS (
        INSERT INTO events (stream, revision, event_id, type, data, metadata, recorded_at)
        SELECT v_item.value->>'stream', v_current + i.ord, (i.value->>'id')::uuid, i.value->>'type', i.value->'data',
               coalesce(i.value->'metadata', '{}'::jsonb), coalesce(p_now, now())
          FROM jsonb_array_elements(v_item.value->'events') WITH ORDINALITY AS i(value, ord)
         ORDER BY i.ord
        RETURNING events.global_position
      )
      SELECT max(inserted.global_position) INTO v_gp FROM inserted;
      IF NOT v_kept AND jsonb_typeof(v_item.value->'retention') = 'object' THEN
        UPDATE streams s SET max_age_seconds = (v_item.value->'retention'->>'maxAgeSeconds')::double precision,
                             truncate_before = (v_item.value->'retention'->>'truncateBefore')::bigint
         WHERE s.stream = v_item.value->>'stream';
      END IF;
      v_wrote := true;
      v_ords := v_ords || v_item.ord;
      v_outcomes := v_outcomes || 'ok'::text;
      v_revisions := v_revisions || (v_current + v_count);
      v_transactions := v_transactions || pg_current_xact_id()::text;
      v_positions := v_positions || v_gp;
      CONTINUE;
    END IF;
    SELECT * INTO v_result
      FROM event_store_append(v_item.value->>'stream', v_expected, v_item.value->'events', p_now,
                              v_item.value->'retention');
    IF v_result.outcome = 'wrong' THEN
      RAISE EXCEPTION 'event_store_wrong_expected_revision'
        USING DETAIL = jsonb_build_object('index', v_item.ord - 1, 'actual', v_result.revision::text)::text;
    END IF;
    IF v_result.outcome = 'idempotent' THEN
      v_repeated := coalesce(v_repeated, v_item.ord);
    ELSIF v_count > 0 THEN
      v_wrote := true;
    END IF;
    v_ords := v_ords || v_item.ord;
    v_outcomes := v_outcomes || v_result.outcome;
    v_revisions := v_revisions || v_result.revision;
    v_transactions := v_transactions || v_result.transaction_id;
    v_positions := v_positions || v_result.global_position;
  END LOOP;
  IF v_repeated IS NOT NULL AND v_wrote THEN
    SELECT s.revision INTO v_actual FROM streams s WHERE s.stream = (p_appends->(v_repeated - 1))->>'stream';
    RAISE EXCEPTION 'event_store_wrong_expected_revision'
      USING DETAIL = jsonb_build_object('index', v_repeated - 1, 'actual', v_actual::text)::text;
  END IF;
  RETURN QUERY SELECT * FROM unnest(v_ords, v_outcomes, v_revisions, v_transactions, v_positions);
END
$fn$;
`;

// Version 2.
// - The statement behind appendMulti's fast path (postgres-append.ts) stops itself through
//   event_store_fast_append_missed when some stream's head did not move, so the whole statement rolls back and the
//   full function decides instead.
// - No parallel plans on the store's tables: every read is an index range of one stream or one page of the global
//   order, and a cached generic plan for a stream read, costed before the table had statistics, was seen gathering
//   parallel workers on every call (a few milliseconds each, reads at a quarter of their rate).
const fastAppendAndSerialReads = `
CREATE FUNCTION event_store_fast_append_missed() RETURNS bigint
LANGUAGE plpgsql AS $fn$
BEGIN
  RAISE EXCEPTION 'event_store_fast_append_missed';
END
$fn$;

ALTER TABLE events SET (parallel_workers = 0);
ALTER TABLE streams SET (parallel_workers = 0);
`;

// Version 3: appends that share a commit (shared-append.ts). Several callers' appends, in the order they reached the
// adapter, run in one statement and so one transaction; each gets its own outcome as a row, and nothing one of them
// does raises an error that would end the others.
// - The heads of every stream named in the call are locked first, in name order (COLLATE "C"), so two such
//   statements never wait on each other's heads in opposite orders.
// - A single-stream append is event_store_append, whose outcomes (ok, idempotent, wrong) are values already. Run in
//   the same transaction as the appends before it, it sees what they wrote: two appends to one stream behave as if
//   sent one after the other.
// - A multi-stream append (every stream with events, new or at an explicit revision, as the fast statement takes
//   them) moves its heads in name order: a new stream's row is inserted, an existing head moves only from the
//   revision expected, with none of the ids in the stream yet and, where guarded, no retention. When a head does not
//   move, the heads this append moved are put back (its new rows deleted, its moved heads reset) and it is answered
//   'deferred': the adapter sends it alone afterwards, through the path that decides it in full. So are the appends
//   after it that name one of its streams, in their order. Otherwise its events go in with one INSERT.
// Version 4 replaces the same function with what version 3 now creates: the retention update runs only for an
// append that moved a head and asked for one, and the outcome rows come from the insert's own RETURNING (two
// statements fewer an append).
// Version 5 replaces it again, with the plain appends first: a one-stream append the adapter marks plain (its stream
// named by no other append of the call, events, no_stream or an explicit revision, no retention) is written by
// three statements shared by every plain append of the call, instead of a function call of its own; one whose head
// does not move is decided in the loop as before. Every stream a plain append names is its alone in the call, so
// writing it first changes no outcome.
// Version 6 replaces the three append functions: each looks up the ids of the events it appends one by one, a
// LATERAL lookup with LIMIT 1 on UNIQUE (stream, event_id) per id. The `e.event_id IN (SELECT …)` they used before
// left the planner free to read every event of the stream (an index range of the stream, or a hash of it), since it
// costs a stream by the average length. A subquery with a LIMIT is not flattened, so each lookup stays a probe of the
// unique index, whatever the length of the stream (docs/PERFORMANCE.md). The shared append's
// plain heads are also found through the primary key (`s.stream = ANY (p_streams)`): joined to the plain appends
// alone, the planner hashed them and scanned the whole streams table, as the fast multi-stream statement once did.
// Version 7 replaces it again: a multi-stream append the adapter marks plain (every stream of it named by no other
// append of the call, each with events, new or at an explicit revision, a retention only on a new stream) joins the
// plain one-stream appends, so a keyed request's append (its key stream new, its aggregate's head guarded) costs no
// loop step of its own. A plain append with a head that did not move has the heads it did move put back before the
// loop decides it.
// Version 9 replaces it again: a plain append's outcome is its stream's last inserted row, found by stream and
// revision among the inserted rows passed through arrays. The inserted rows' stream carries the statistics of
// events.stream (a stream for every key, hundreds of thousands once ANALYZE ran): grouped by it, or joined on it,
// the planner counted them by those and split the join's hash table into batches written to temporary files on
// every call. Unnested from arrays, they count as the few rows they are.
// Outcome rows: (item, part, outcome, revision, transaction_id, global_position, recorded_at), part being the 1-based
// stream of a multi-stream append; recorded_at is reported for the streams of a multi-stream append it wrote.
const appendBatchFunction = (create: 'CREATE' | 'CREATE OR REPLACE') => `
${create} FUNCTION event_store_append_batch(p_items jsonb, p_streams text[], p_now timestamptz)
RETURNS TABLE (item integer, part integer, outcome text, revision bigint, transaction_id text, global_position bigint,
               recorded_at timestamptz)
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
  v_item record;
  v_part record;
  v_append jsonb;
  v_streams text[];
  v_deferred text[] := '{}';
  v_created text[];
  v_moved text[];
  v_moved_from bigint[];
  v_missed boolean;
  v_count bigint;
  v_expected bigint;
  v_retained boolean;
  v_missed_plain integer[];
  v_headed text[];
BEGIN
  PERFORM 1 FROM streams s WHERE s.stream = ANY (p_streams) ORDER BY s.stream COLLATE "C" FOR UPDATE;

  -- The plain appends, all at once, one-stream and multi-stream alike, as their streams: a head that moves from the
  -- revision expected (with none of the ids in its stream yet and, where guarded, no retention), or a new stream's
  -- row. A plain append with a head that did not move is missed: the heads it did move are put back, and it is left
  -- to the loop below, which decides it in full. Every other plain append has its events written by one INSERT.
  WITH plain_part AS (
    SELECT i.ordinality::integer AS ord, a.value->>'stream' AS stream, (a.value->>'expected')::bigint AS expected,
           jsonb_array_length(a.value->'events') AS count, a.value->'retention' AS retention,
           coalesce((a.value->>'no_retention')::boolean, false) AS no_retention, a.value->'events' AS events
      FROM jsonb_array_elements(p_items) WITH ORDINALITY AS i
      CROSS JOIN LATERAL jsonb_array_elements(i.value->'appends') AS a(value)
     WHERE coalesce((i.value->>'plain')::boolean, false)
  ), unseen AS MATERIALIZED (
    SELECT p.* FROM plain_part p
     WHERE p.expected >= 0
       AND NOT EXISTS (
         SELECT 1 FROM jsonb_array_elements(p.events) AS v(value)
           CROSS JOIN LATERAL (SELECT 1 FROM events e
                                WHERE e.stream = p.stream AND e.event_id = (v.value->>'id')::uuid LIMIT 1) AS known)
  ), moved AS (
    UPDATE streams s SET revision = p.expected + p.count
      FROM unseen p
     WHERE s.stream = ANY (p_streams) AND s.stream = p.stream AND s.revision = p.expected
       AND (NOT p.no_retention OR (s.max_age_seconds IS NULL AND s.truncate_before IS NULL))
    RETURNING s.stream
  ), created AS (
    INSERT INTO streams (stream, revision, max_age_seconds, truncate_before)
    SELECT p.stream, p.count - 1, (p.retention->>'maxAgeSeconds')::double precision,
           (p.retention->>'truncateBefore')::bigint
      FROM plain_part p WHERE p.expected = -1
    ON CONFLICT DO NOTHING
    RETURNING streams.stream
  )
  SELECT coalesce(array_agg(DISTINCT p.ord) FILTER (WHERE h.stream IS NULL), '{}'),
         coalesce(array_agg(p.stream) FILTER (WHERE h.stream IS NOT NULL), '{}')
    INTO v_missed_plain, v_headed
    FROM plain_part p LEFT JOIN (SELECT m.stream FROM moved m UNION ALL SELECT c.stream FROM created c) AS h
      ON h.stream = p.stream;

  IF cardinality(v_missed_plain) > 0 THEN
    DELETE FROM streams s
     USING jsonb_array_elements(p_items) WITH ORDINALITY AS i
      CROSS JOIN LATERAL jsonb_array_elements(i.value->'appends') AS a(value)
     WHERE i.ordinality::integer = ANY (v_missed_plain) AND (a.value->>'expected')::bigint = -1
       AND s.stream = a.value->>'stream' AND s.stream = ANY (v_headed);
    UPDATE streams s SET revision = (a.value->>'expected')::bigint
      FROM jsonb_array_elements(p_items) WITH ORDINALITY AS i
      CROSS JOIN LATERAL jsonb_array_elements(i.value->'appends') AS a(value)
     WHERE i.ordinality::integer = ANY (v_missed_plain) AND (a.value->>'expected')::bigint >= 0
       AND s.stream = a.value->>'stream' AND s.stream = ANY (v_headed);
  END IF;

  RETURN QUERY
    WITH plain_part AS (
      SELECT i.ordinality::integer AS ord, a.ordinality::integer AS part, (i.value->>'multi')::boolean AS multi,
             a.value->>'stream' AS stream, (a.value->>'expected')::bigint AS expected, a.value->'events' AS events,
             jsonb_array_length(a.value->'events') AS count
        FROM jsonb_array_elements(p_items) WITH ORDINALITY AS i
        CROSS JOIN LATERAL jsonb_array_elements(i.value->'appends') WITH ORDINALITY AS a
       WHERE coalesce((i.value->>'plain')::boolean, false) AND i.ordinality::integer <> ALL (v_missed_plain)
    ), inserted AS (
      INSERT INTO events (stream, revision, event_id, type, data, metadata, recorded_at)
      SELECT p.stream, p.expected + e.ord, (e.value->>'id')::uuid, e.value->>'type', e.value->'data',
             coalesce(e.value->'metadata', '{}'::jsonb), coalesce(p_now, now())
        FROM plain_part p CROSS JOIN LATERAL jsonb_array_elements(p.events) WITH ORDINALITY AS e(value, ord)
       ORDER BY p.ord, p.stream COLLATE "C", e.ord
      RETURNING events.stream, events.revision, events.global_position
    ), written AS (
      SELECT w.stream, w.revision, w.global_position
        FROM (SELECT array_agg(n.stream) AS streams, array_agg(n.revision) AS revisions,
                     array_agg(n.global_position) AS positions FROM inserted n) AS a
       CROSS JOIN LATERAL unnest(a.streams, a.revisions, a.positions) AS w(stream, revision, global_position)
    )
    SELECT p.ord, p.part, 'ok'::text, w.revision, pg_current_xact_id()::text, w.global_position,
           CASE WHEN p.multi THEN coalesce(p_now, now()) END
      FROM plain_part p
      JOIN written w ON w.stream = p.stream AND w.revision = p.expected + p.count;

  FOR v_item IN
    SELECT i.value, i.ordinality::integer AS ord FROM jsonb_array_elements(p_items) WITH ORDINALITY AS i
     WHERE NOT coalesce((i.value->>'plain')::boolean, false) OR i.ordinality::integer = ANY (v_missed_plain)
  LOOP
    v_streams := ARRAY(SELECT a.value->>'stream' FROM jsonb_array_elements(v_item.value->'appends') AS a(value));
    IF v_streams && v_deferred THEN
      v_deferred := v_deferred || v_streams;
      RETURN QUERY SELECT v_item.ord, 0, 'deferred'::text, NULL::bigint, NULL::text, NULL::bigint, NULL::timestamptz;
      CONTINUE;
    END IF;

    IF NOT (v_item.value->>'multi')::boolean THEN
      v_append := v_item.value->'appends'->0;
      RETURN QUERY
        SELECT v_item.ord, 1, r.outcome, r.revision, r.transaction_id, r.global_position, NULL::timestamptz
          FROM event_store_append(v_append->>'stream', (v_append->>'expected')::bigint, v_append->'events', p_now,
                                  v_append->'retention') AS r;
      CONTINUE;
    END IF;

    v_missed := false;
    v_retained := false;
    v_created := '{}';
    v_moved := '{}';
    v_moved_from := '{}';
    FOR v_part IN
      SELECT a.value FROM jsonb_array_elements(v_item.value->'appends') AS a(value)
       ORDER BY a.value->>'stream' COLLATE "C"
    LOOP
      v_count := jsonb_array_length(v_part.value->'events');
      v_expected := (v_part.value->>'expected')::bigint;
      IF v_expected = -1 THEN
        INSERT INTO streams (stream, revision, max_age_seconds, truncate_before)
        VALUES (v_part.value->>'stream', v_count - 1,
                (v_part.value->'retention'->>'maxAgeSeconds')::double precision,
                (v_part.value->'retention'->>'truncateBefore')::bigint)
        ON CONFLICT DO NOTHING;
        v_missed := NOT FOUND;
        EXIT WHEN v_missed;
        v_created := v_created || (v_part.value->>'stream');
      ELSE
        PERFORM 1 FROM jsonb_array_elements(v_part.value->'events') AS i(value)
          CROSS JOIN LATERAL (SELECT 1 FROM events e
                               WHERE e.stream = v_part.value->>'stream' AND e.event_id = (i.value->>'id')::uuid
                               LIMIT 1) AS known;
        v_missed := FOUND;
        EXIT WHEN v_missed;
        UPDATE streams s SET revision = v_expected + v_count
         WHERE s.stream = v_part.value->>'stream' AND s.revision = v_expected
           AND (NOT coalesce((v_part.value->>'no_retention')::boolean, false)
                OR (s.max_age_seconds IS NULL AND s.truncate_before IS NULL));
        v_missed := NOT FOUND;
        EXIT WHEN v_missed;
        v_moved := v_moved || (v_part.value->>'stream');
        v_moved_from := v_moved_from || v_expected;
        v_retained := v_retained OR jsonb_typeof(v_part.value->'retention') = 'object';
      END IF;
    END LOOP;

    IF v_missed THEN
      DELETE FROM streams s WHERE s.stream = ANY (v_created);
      UPDATE streams s SET revision = m.revision
        FROM unnest(v_moved, v_moved_from) AS m(stream, revision) WHERE s.stream = m.stream;
      v_deferred := v_deferred || v_streams;
      RETURN QUERY SELECT v_item.ord, 0, 'deferred'::text, NULL::bigint, NULL::text, NULL::bigint, NULL::timestamptz;
      CONTINUE;
    END IF;

    IF v_retained THEN
      UPDATE streams s SET max_age_seconds = (a.value->'retention'->>'maxAgeSeconds')::double precision,
                           truncate_before = (a.value->'retention'->>'truncateBefore')::bigint
        FROM jsonb_array_elements(v_item.value->'appends') AS a(value)
       WHERE s.stream = a.value->>'stream' AND s.stream = ANY (v_moved)
         AND jsonb_typeof(a.value->'retention') = 'object';
    END IF;

    RETURN QUERY
      WITH inserted AS (
        INSERT INTO events (stream, revision, event_id, type, data, metadata, recorded_at)
        SELECT a.value->>'stream', (a.value->>'expected')::bigint + e.ord, (e.value->>'id')::uuid, e.value->>'type',
               e.value->'data', coalesce(e.value->'metadata', '{}'::jsonb), coalesce(p_now, now())
          FROM jsonb_array_elements(v_item.value->'appends') AS a(value)
          CROSS JOIN LATERAL jsonb_array_elements(a.value->'events') WITH ORDINALITY AS e(value, ord)
         ORDER BY a.value->>'stream' COLLATE "C", e.ord
        RETURNING events.stream, events.revision, events.global_position
      )
      SELECT v_item.ord, a.ordinality::integer, 'ok'::text, max(w.revision), pg_current_xact_id()::text,
             max(w.global_position), coalesce(p_now, now())
        FROM jsonb_array_elements(v_item.value->'appends') WITH ORDINALITY AS a
        JOIN inserted AS w ON w.stream = a.value->>'stream'
       GROUP BY a.ordinality;
  END LOOP;
END
$fn$;
`;

// Version 8: statistics of an event's data and metadata serve no plan (no statement filters, joins or sorts on them),
// yet gathering them was most of an ANALYZE of events, which autovacuum runs every few seconds under load.
const unanalyzedPayloads = `
ALTER TABLE events ALTER COLUMN data SET STATISTICS 0, ALTER COLUMN metadata SET STATISTICS 0;
`;

/** The event store's schema, version by version. */
export const eventStoreMigrations: readonly Migration[] = [
  {
    version: 1,
    name: 'streams with their retention, events, and the append functions',
    sql: schema + appendFunction('CREATE') + appendMultiFunction('CREATE'),
  },
  {
    version: 2,
    name: 'the fast path of appendMulti stops itself when a head did not move; no parallel scans of the store',
    sql: fastAppendAndSerialReads,
  },
  {
    version: 3,
    name: 'appends of several callers in one statement, each with its own outcome',
    sql: appendBatchFunction('CREATE'),
  },
  {
    version: 4,
    name: 'a shared append of several streams writes retention only when asked and answers from its insert',
    sql: appendBatchFunction('CREATE OR REPLACE'),
  },
  {
    version: 5,
    name: 'a shared append writes its plain one-stream appends with three statements for all of them',
    sql: appendBatchFunction('CREATE OR REPLACE'),
  },
  {
    version: 6,
    name: 'appends look up repeated event ids one by one through UNIQUE (stream, event_id)',
    sql:
      appendFunction('CREATE OR REPLACE') +
      appendMultiFunction('CREATE OR REPLACE') +
      appendBatchFunction('CREATE OR REPLACE'),
  },
  {
    version: 7,
    name: 'a shared append writes its plain multi-stream appends with the plain one-stream ones',
    sql: appendBatchFunction('CREATE OR REPLACE'),
  },
  {
    version: 8,
    name: "ANALYZE leaves out the events' data and metadata, which no statement filters on",
    sql: unanalyzedPayloads,
  },
  {
    version: 9,
    name: "a shared append answers from its streams' last rows, with no grouping that events' statistics mislead",
    sql: appendBatchFunction('CREATE OR REPLACE'),
  },
];

/**
 * Creates or upgrades the event store's tables in `pool`'s database. Idempotent, and safe when several processes
 * start together (see `migrate`). `createPostgresEventStore` calls it on start unless told not to.
 *
 * @param pool the database to migrate
 * @example
 * await migrateEventStore(pool);
 */
export const migrateEventStore = async (pool: Pool): Promise<MigrationResult> => {
  await refuseFoldedVersions(pool);
  return migrate(pool, 'event-store', eventStoreMigrations);
};

/**
 * Before the first release, versions 1 to 4 were folded into version 1, and version 2 was later reused. A database
 * migrated by those unreleased versions records a version this list does not know, or one under another name, and
 * lacks the current functions: say so plainly instead of failing later on a missing function.
 */
const refuseFoldedVersions = async (pool: Pool): Promise<void> => {
  let recorded: readonly { version: number; name: string }[];
  try {
    ({ rows: recorded } = await pool.query<{ version: number; name: string }>(
      "SELECT version, name FROM once_migrations WHERE component = 'event-store' ORDER BY version",
    ));
  } catch (error) {
    if ((error as { code?: unknown }).code === '42P01') return; // no migrations table yet: a new database
    throw error;
  }
  const known = new Map(eventStoreMigrations.map((migration) => [migration.version, migration.name]));
  const foreign = recorded.find((row) => known.get(row.version) !== row.name);
  if (foreign !== undefined) {
    throw new Error(
      `the event-store schema in this database is at version ${foreign.version} ("${foreign.name}"), written by ` +
        `unreleased migrations that were folded into version 1; recreate this development database`,
    );
  }
};
