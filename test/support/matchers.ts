/** vitest's asymmetric matchers, typed `unknown` instead of `any`: an expected object holding them stays typed. */
import { expect } from 'vitest'

export const anyOf = (type: unknown): unknown => expect.any(type)
export const matching = (pattern: RegExp): unknown => expect.stringMatching(pattern)
export const containing = (text: string): unknown => expect.stringContaining(text)
export const arrayContaining = (items: unknown[]): unknown => expect.arrayContaining(items)
