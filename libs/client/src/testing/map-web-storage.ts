/**
 * An in-process Web Storage area (the `Storage` interface of `localStorage`), for unit tests in Node.
 * It can be told to refuse writes, as a full quota does.
 */
export class MapWebStorage implements Storage {
  readonly #items = new Map<string, string>();
  refuseWrites = false;

  get length(): number {
    return this.#items.size;
  }

  clear(): void {
    this.#items.clear();
  }

  getItem(key: string): string | null {
    return this.#items.get(key) ?? null;
  }

  key(index: number): string | null {
    return [...this.#items.keys()][index] ?? null;
  }

  removeItem(key: string): void {
    this.#items.delete(key);
  }

  setItem(key: string, value: string): void {
    if (this.refuseWrites) throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
    this.#items.set(key, String(value));
  }

  [name: string]: unknown;
}
