// Appending one list to another whatever its length.

/**
 * `to.push(...items)` for a list of any length: a spread passes every item as an argument, and V8
 * overflows the stack past ~125k of them; a request body within the size limit can hold more bad
 * labels, unknown fields or schema errors than that.
 */
export function appendAll<T>(to: T[], items: Iterable<T>): T[] {
  for (const x of items) to.push(x);
  return to;
}
