/**
 * A bounded number of promises at once (pure): for reads of many files or API objects where one
 * at a time is slow and all at once runs out of file descriptors or floods the API server.
 */

/**
 * `f` of each item, at most `limit` at once; the results in the order of `items`.
 * @throws the first error `f` throws (the calls already started still run)
 */
export async function inFlight<T, R>(
  items: readonly T[],
  limit: number,
  f: (item: T) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await f(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
