/** @module The ids clients give (sessions, turns, calls): short, and safe in a path, a header and a log line. */
import { Type } from '@sinclair/typebox'

export const IdSchema = Type.String({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9._:@-]+$' })
