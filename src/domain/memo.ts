/**
 * A pure function's answers kept by argument, for names that recur across a catalog's records (CNA
 * texts, CPEs, NVD criteria): emptied whole when full, which keeps the common ones in a long import
 * at the price of one re-read each. `undefined` answers are kept too.
 */
export function memoized<K, V>(limit: number, compute: (key: K) => V): (key: K) => V {
  const answers = new Map<K, V>();
  return (key) => {
    if (answers.has(key)) return answers.get(key) as V;
    if (answers.size >= limit) answers.clear();
    const value = compute(key);
    answers.set(key, value);
    return value;
  };
}
