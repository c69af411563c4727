/** exporter-toolkit web/cache.go: at most 100 entries. */
const CACHE_SIZE = 100;

/**
 * The verdicts of verified credentials, as exporter-toolkit's `cache` (web/cache.go): at most 100 entries; when full,
 * a tenth of them and one more are evicted at random before the next is added.
 */
export class AuthCache {
  readonly #entries = new Map<string, boolean>();
  readonly #random: () => number;

  constructor(options: { random?: () => number } = {}) {
    this.#random = options.random ?? Math.random;
  }

  get(key: string): boolean | undefined {
    return this.#entries.get(key);
  }

  set(key: string, verdict: boolean): void {
    if (this.#entries.size >= CACHE_SIZE) {
      const keys = [...this.#entries.keys()];
      const toDelete = Math.max(Math.floor(keys.length / 10), 1);
      for (let deleted = 0; deleted <= toDelete; deleted++) {
        const victim = keys.splice(Math.floor(this.#random() * keys.length), 1)[0];
        if (victim !== undefined) this.#entries.delete(victim);
      }
    }
    this.#entries.set(key, verdict);
  }

  get size(): number {
    return this.#entries.size;
  }
}
