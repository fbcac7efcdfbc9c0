/**
 * One bounded memo of a pure function of one key (pure): what the module-level memos of times
 * (`scaling/iso-ms.ts`), namespace files (`manifests/namespaces.ts`) and GPU UUIDs
 * (`sim/dcgm/page.ts`) share, so that each states only its limit and its function.
 */

/**
 * `fn` remembered by its key: the returned function answers `fn(key)`, calling `fn` only for a key
 * it does not hold. Keys compare as a `Map`'s do (SameValueZero: two strings of the same text are
 * one key however they were built; `NaN` is one key). `fn` must be pure: an answer is never
 * computed again while its key is held (an `undefined` answer is remembered too).
 *
 * Eviction: at most `limit` keys are held; remembering a new key when `limit` are held forgets
 * the one remembered first (insertion order; a hit does not make a key younger), so a process that
 * runs for weeks keeps the newest keys and never more than `limit`. A forgotten key asked again is
 * computed again and remembered as new. Each memo is its own `Map` plus a ring of `limit` keys.
 * @throws RangeError when `limit` is not a whole number ≥ 1
 */
export function boundedMemo<K, V>(limit: number, fn: (key: K) => V): (key: K) => V {
  if (!Number.isInteger(limit) || limit < 1)
    throw new RangeError(`boundedMemo: limit must be a whole number ≥ 1, got ${limit}`);
  const held = new Map<K, V>();
  /** The keys in the order they were remembered; `oldest` is the next to go once full. */
  const order: K[] = [];
  let oldest = 0;
  return (key: K): V => {
    const known = held.get(key);
    if (known !== undefined || held.has(key)) return known as V;
    const value = fn(key);
    if (order.length < limit) order.push(key);
    else {
      held.delete(order[oldest] as K);
      order[oldest] = key;
      oldest = (oldest + 1) % limit;
    }
    held.set(key, value);
    return value;
  };
}
