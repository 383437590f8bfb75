/** @module A synchronous step as the port's promise: what it returned, or what it threw as a rejection. */

/** Never throws: a caller that awaits the port finds every failure in the promise. */
export function settled<T>(step: () => T): Promise<T> {
  try {
    return Promise.resolve(step())
  } catch (error) {
    return Promise.reject(error)
  }
}
