/**
 * Maps `items` through `fn` with at most `options.limit` calls in flight, keeping the input order in the result.
 * After a failure no further item starts, and the call rejects with the first error only once the calls in flight
 * have settled: nothing it started runs on after it (a failed `lock` or `sync` went on downloading and unpacking
 * after it had reported the failure, and a process exited only when that was done).
 */
export async function mapConcurrent<T, R>(
  items: readonly T[],
  fn: (item: T, index: number) => Promise<R>,
  options: { readonly limit: number },
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failure: { readonly error: unknown } | undefined;
  async function worker(): Promise<void> {
    while (failure === undefined && next < items.length) {
      const index = next++;
      try {
        results[index] = await fn(items[index] as T, index);
      } catch (error) {
        failure ??= { error };
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(options.limit, items.length) }, worker));
  if (failure !== undefined) throw failure.error;
  return results;
}
