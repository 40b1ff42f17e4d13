// Reads that many requests make at the same moment, made once per turn of the event loop: the requests whose
// bytes one poll of the sockets read (under load, dozens) ask within the same turn, and share one statement sent
// when the turn ends. It is sent after every request that joins it has arrived, so each answer reflects everything
// committed before its request arrived, exactly as a statement of its own would; it only saves the round trips.

/** The most keys one statement asks about; more in one turn go in further statements. */
const MAX_KEYS = 500;

type Waiter<V> = { resolve(v: V): void; reject(e: unknown): void };

/**
 * `read(keys)` answers many keys in one statement; the function returned asks for one key and shares that
 * statement with every other key asked in the same turn. A key `read` leaves out answers `missing`.
 */
export function perTurn<K, V>(read: (keys: K[]) => Promise<Map<K, V>>, missing: V): (key: K) => Promise<V> {
  let waiting: Map<K, Waiter<V>[]> | null = null;

  async function send(batch: Map<K, Waiter<V>[]>) {
    const keys = [...batch.keys()];
    for (let i = 0; i < keys.length; i += MAX_KEYS) {
      const part = keys.slice(i, i + MAX_KEYS);
      try {
        const values = await read(part);
        for (const key of part)
          for (const w of batch.get(key)!) w.resolve(values.has(key) ? values.get(key)! : missing);
      } catch (err) {
        for (const key of part) for (const w of batch.get(key)!) w.reject(err);
      }
    }
  }

  function turnBatch(): Map<K, Waiter<V>[]> {
    if (waiting) return waiting;
    const batch = new Map<K, Waiter<V>[]>();
    waiting = batch;
    // The check phase: after this poll's sockets were all read and their requests got this far.
    setImmediate(() => {
      waiting = null;
      void send(batch);
    });
    return batch;
  }

  return (key) =>
    new Promise<V>((resolve, reject) => {
      const batch = turnBatch();
      const waiters = batch.get(key);
      if (waiters) waiters.push({ resolve, reject });
      else batch.set(key, [{ resolve, reject }]);
    });
}
