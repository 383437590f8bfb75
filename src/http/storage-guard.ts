/**
 * @module The edge of a full disk: routes that start new work refuse it with 507
 * API_ERR_STORAGE_FULL while the data directory has no room, and any write that fails for
 * want of space answers the same instead of a 500 (see contracts/storage-room.ts).
 */
import type { FastifyError, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import type { StorageRoom } from '../contracts/storage-room.js'
import { handleError } from './error-status.js'

/** A preHandler for routes that start new work (a session, a schedule, a call, an answer to store). */
export function refuseNewWorkWhenFull(storage: StorageRoom): (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void {
  // A throw here reaches the error handler like a rejection would.
  return function refuseWhenFull(_request, _reply, done) {
    storage.assertRoom()
    done()
  }
}

export function buildStorageAwareErrorHandler(storage: StorageRoom): (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => void {
  return function handleStorageAwareError(error, request, reply) {
    const full = storage.translate(error)
    if (full === undefined) return handleError(error, request, reply)
    request.log.warn({ err: error, dataDir: storage.dataDir }, 'storage full: request refused')
    handleError(full, request, reply)
  }
}
