/**
 * The last `capacity` keys added, each with a value, in constant memory: adding one more forgets
 * the oldest. For "have I seen this lately?" over a sequence of unknown length.
 */
export class RecentMap<K, V> {
  readonly #capacity: number;
  readonly #order: K[] = [];
  readonly #values = new Map<K, V>();
  #oldest = 0;

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('capacity must be a positive integer');
    this.#capacity = capacity;
  }

  get size(): number {
    return this.#values.size;
  }

  get(key: K): V | undefined {
    return this.#values.get(key);
  }

  has(key: K): boolean {
    return this.#values.has(key);
  }

  /** Adds `key` (a key already held just gets the new value and stays where it was). */
  set(key: K, value: V): void {
    if (this.#values.has(key)) {
      this.#values.set(key, value);
      return;
    }
    if (this.#order.length < this.#capacity) {
      this.#order.push(key);
    } else {
      this.#values.delete(this.#order[this.#oldest] as K);
      this.#order[this.#oldest] = key;
      this.#oldest = (this.#oldest + 1) % this.#capacity;
    }
    this.#values.set(key, value);
  }
}
