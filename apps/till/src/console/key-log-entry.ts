/** One key-log event as `/ops/keys` gives it: whatever the payload's shape. */
export interface KeyLogEntry {
  readonly revision: string;
  readonly type: string;
  readonly recordedAt: string;
  readonly position: string;
  readonly data: unknown;
}

/** How the timeline colours an event; unknown types are `other`, and still shown in full. */
export type EntryKind =
  'claimed' | 'planned' | 'recovery-point' | 'lease' | 'completed' | 'released' | 'other';

const kinds: readonly (readonly [RegExp, EntryKind])[] = [
  [/Claimed$/, 'claimed'],
  [/Planned$/, 'planned'],
  [/RecoveryPoint/, 'recovery-point'],
  [/Lease/, 'lease'],
  [/Completed$/, 'completed'],
  [/Released$/, 'released'],
];

/**
 * Names an event's kind from its type alone, so the timeline survives new payloads and new event types.
 *
 * @example
 * entryKind('IdempotencyRecoveryPointReached'); // 'recovery-point'
 */
export const entryKind = (type: string): EntryKind =>
  kinds.find(([pattern]) => pattern.test(type))?.[1] ?? 'other';

/** One field of an event's data, ready to show: scalars as text, anything nested as indented JSON. */
export interface EntryField {
  readonly name: string;
  readonly text: string;
  readonly nested: boolean;
}

/**
 * The top-level fields of an event's data, in their stored order. A data value that is not an object is one field,
 * `data`. A string holding JSON (a stored response body) is shown indented.
 *
 * @example
 * entryFields({ holder: 'api-1', response: { status: 201 } });
 * // [{ name: 'holder', text: 'api-1', nested: false }, { name: 'response', text: '{\n  "status": 201\n}', nested: true }]
 */
export const entryFields = (data: unknown): EntryField[] => {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return [fieldOf('data', data)];
  return Object.entries(data).map(([name, value]) => fieldOf(name, value));
};

const fieldOf = (name: string, value: unknown): EntryField => {
  if (typeof value === 'object' && value !== null)
    return { name, text: JSON.stringify(value, null, 2), nested: true };
  if (typeof value === 'string') {
    const json = parseJsonObject(value);
    return json === undefined
      ? { name, text: value, nested: false }
      : { name, text: JSON.stringify(json, null, 2), nested: true };
  }
  return { name, text: String(value), nested: false };
};

const parseJsonObject = (text: string): unknown => {
  if (!text.startsWith('{') && !text.startsWith('[')) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
};
