import { formatMoney, h, replaceChildren, signOutButton } from '../common/index.js';
import type { ConsoleOverview, KeyTimeline } from './console-api.js';
import { entryFields, entryKind } from './key-log-entry.js';
import type { KeyLogEntry } from './key-log-entry.js';

/** `hh:mm:ss.mmm` (UTC), the precision a key's events need. */
const time = (iso: string) => `${iso.slice(11, 23)} UTC`;
const percent = (rate: number) => `${(rate * 100).toFixed(1)} %`;
const ago = (iso: string | undefined) =>
  iso === undefined
    ? '–'
    : `${String(Math.max(0, Math.round((Date.now() - new Date(iso).getTime()) / 1000)))} s`;

/** An amount as the gateway reported it: its currency may be one `Intl` does not know. */
const reportedMoney = ({ amount, currency }: { readonly amount: number; readonly currency: string }) => {
  try {
    return formatMoney(amount, currency);
  } catch {
    return `${String(amount)} ${currency}`;
  }
};
const foldedLines = 8;

/** Nested data as indented JSON; folded when long (plans carry whole events), one click away. */
const nestedValue = (text: string) => {
  const lines = text.split('\n').length;
  if (lines <= foldedLines) return h('pre', {}, text);
  return h('details', {}, h('summary', {}, `${String(lines)} lines`), h('pre', {}, text));
};

const timelineEntry = (entry: KeyLogEntry) => {
  const kind = entryKind(entry.type);
  return h(
    'li',
    { class: `entry ${kind}`, 'data-kind': kind, 'data-type': entry.type },
    h(
      'div',
      { class: 'entry-head' },
      h('span', { class: 'dot' }),
      h('span', { class: 'entry-type' }, entry.type),
      h('time', { datetime: entry.recordedAt }, time(entry.recordedAt)),
      h('span', { class: 'hint' }, `#${entry.revision}`),
    ),
    h(
      'dl',
      { class: 'fields' },
      ...entryFields(entry.data).flatMap((field) => [
        h('dt', {}, field.name),
        h('dd', {}, field.nested ? nestedValue(field.text) : field.text),
      ]),
    ),
  );
};

const keyCard = (key: KeyTimeline) =>
  h(
    'article',
    { class: 'card key', 'data-testid': 'key-timeline', 'data-key': key.key },
    h('h3', {}, h('code', {}, key.key), ' ', h('span', { class: `badge ${key.status}` }, key.status)),
    h(
      'p',
      { class: 'summary' },
      `${key.method} ${key.route} · actor ${key.actorId.slice(0, 8)} · recovery point ${key.recoveryPoint}`,
      key.holder ? ` · held by ${key.holder} until ${time(key.leaseExpiresAt ?? key.updatedAt)}` : '',
      key.releaseReason ? ` · released: ${key.releaseReason}` : '',
    ),
    h('ol', { class: 'timeline' }, ...key.events.map(timelineEntry)),
    key.response
      ? h(
          'details',
          { class: 'response', open: true },
          h('summary', {}, `Stored response: ${String(key.response.status)}`),
          h('pre', {}, entryFields({ body: key.response.body })[0]?.text ?? key.response.body),
        )
      : h('p', { class: 'hint' }, 'No stored response yet.'),
  );

const table = (headings: readonly string[], rows: readonly (readonly (Node | string)[])[], empty: string) =>
  rows.length === 0
    ? h('p', { class: 'hint' }, empty)
    : h(
        'table',
        {},
        h('thead', {}, h('tr', {}, ...headings.map((heading) => h('th', {}, heading)))),
        h('tbody', {}, ...rows.map((cells) => h('tr', {}, ...cells.map((cell) => h('td', {}, cell))))),
      );

/** The pages and their files are not the api: the console leaves them out of the rates. */
const isApiRoute = (route: { readonly route: string }) => !/^\/(web|till|console)(\/|$)/.test(route.route);

const overviewPanels = (overview: ConsoleOverview, lookUpKey: (key: string) => void) => [
  h(
    'section',
    { class: 'card', 'data-testid': 'in-flight' },
    h('h2', {}, `Keys in flight (${String(overview.inFlight.length)})`),
    table(
      ['key', 'route', 'recovery point', 'holder', 'lease'],
      overview.inFlight.map((key) => [
        h('a', { href: '#', onclick: (event) => (event.preventDefault(), lookUpKey(key.key)) }, key.key),
        `${key.method} ${key.route}`,
        key.recoveryPoint,
        key.holder ?? '–',
        key.leaseExpired
          ? 'expired: the completer finishes it'
          : `until ${time(key.leaseExpiresAt ?? key.updatedAt)}`,
      ]),
      'None: every key has its answer.',
    ),
  ),
  h(
    'section',
    { class: 'card', 'data-testid': 'unresumable' },
    h('h2', {}, `Keys the completer cannot resume (${String(overview.unresumable.length)})`),
    table(
      ['key', 'command', 'lease ended'],
      overview.unresumable.map((key) => [
        h('a', { href: '#', onclick: (event) => (event.preventDefault(), lookUpKey(key.key)) }, key.key),
        key.commandType ?? 'unknown (a first-format claim)',
        `${key.leaseExpiredAt.slice(0, 19).replace('T', ' ')} UTC`,
      ]),
      'None: the completer can resume every key left in flight.',
    ),
  ),
  h(
    'section',
    { class: 'card', 'data-testid': 'payments-attention' },
    h('h2', {}, `Payments needing attention (${String(overview.payments.length)})`),
    table(
      ['payment', 'invoice', 'amount', 'status'],
      overview.payments.map((payment) => [
        payment.id,
        payment.invoiceId,
        formatMoney(payment.amount, payment.currency),
        payment.gatewayCharged
          ? `${payment.method} ${payment.status}: the gateway charged ${reportedMoney(payment.gatewayCharged)}`
          : `${payment.method} ${payment.status}`,
      ]),
      "None: no card payment is waiting for the gateway's answer.",
    ),
  ),
  h(
    'section',
    { class: 'card', 'data-testid': 'projection-lag' },
    h('h2', {}, 'Projection lag'),
    table(
      ['projection', 'version', 'events behind', 'oldest waiting'],
      overview.projections.map((projection) => [
        projection.name,
        String(projection.version),
        projection.behindEvents >= projection.countLimit
          ? `≥ ${String(projection.countLimit)}`
          : String(projection.behindEvents),
        ago(projection.oldestUnappliedAt),
      ]),
      'No projection has run yet.',
    ),
  ),
  h(
    'section',
    { class: 'card wide', 'data-testid': 'route-rates' },
    h('h2', {}, `Routes since ${time(overview.routes.since)}`),
    table(
      ['route', 'requests', 'keyed', 'replays', 'replay rate', '409', '422'],
      overview.routes.routes
        .filter(isApiRoute)
        .map((route) => [
          `${route.method} ${route.route}`,
          String(route.requests),
          String(route.keyed),
          String(route.replays),
          percent(route.replayRate),
          `${String(route.status409)} (${percent(route.conflictRate)})`,
          `${String(route.status422)} (${percent(route.unprocessableRate)})`,
        ]),
      'No requests yet.',
    ),
  ),
];

/** The console's parts, drawn into the page once; `showKeys` and `showOverview` refill them. */
export interface ConsoleView {
  showKeys(query: string, keys: readonly KeyTimeline[] | Error): void;
  showOverview(overview: ConsoleOverview | Error): void;
}

/**
 * Draws the console's frame (header, lookup form, result and overview areas) into `root`.
 *
 * @example
 * const view = drawConsole(root, (text) => lookUp(apiKey, text).then(...));
 */
export const drawConsole = (root: Element, onLookUp: (text: string) => void): ConsoleView => {
  const input = h('input', {
    id: 'lookup',
    placeholder: 'Idempotency-Key, or the id of an order, invoice or payment',
    autocomplete: 'off',
  }) as HTMLInputElement;
  const results = h('div', { class: 'results', 'data-testid': 'lookup-results' });
  const overviewArea = h('div', { class: 'overview' });
  const lookUpKey = (text: string) => {
    input.value = text;
    onLookUp(text);
  };
  replaceChildren(
    root,
    h(
      'header',
      { class: 'bar' },
      h('h1', {}, 'Once console'),
      h('span', { class: 'hint' }, 'your tenant'),
      signOutButton(),
    ),
    h(
      'main',
      { class: 'console' },
      h(
        'form',
        {
          class: 'card lookup',
          onsubmit: (event) => {
            event.preventDefault();
            if (input.value.trim() !== '') onLookUp(input.value.trim());
          },
        },
        input,
        h('button', { type: 'submit', class: 'primary', id: 'look-up' }, 'Look up'),
      ),
      results,
      overviewArea,
    ),
  );
  return {
    showKeys: (query, keys) =>
      replaceChildren(
        results,
        keys instanceof Error
          ? h('p', { class: 'note refused' }, `Lookup failed: ${keys.message}`)
          : keys.length === 0
            ? h('p', { class: 'hint' }, `No key ${query} in your tenant (keys are kept at least 24 hours).`)
            : undefined,
        ...(keys instanceof Error ? [] : keys.map(keyCard)),
      ),
    showOverview: (overview) =>
      replaceChildren(
        overviewArea,
        ...(overview instanceof Error
          ? [h('p', { class: 'note refused' }, `Could not read the overview: ${overview.message}`)]
          : overviewPanels(overview, lookUpKey)),
      ),
  };
};
