/** @module The directory (or file) Glob and Grep search: named or the workspace, checked to be inside the guard. */
import { stat } from 'node:fs/promises'
import path from 'node:path'
import type { ToolCallContext } from '../../contracts/ports.js'
import { isWithin } from '../../paths/locations.js'
import { assertAllowed, createPathGuard, FileToolError, NO_WORKSPACE, type PathGuard } from '../workspace.js'

export interface SearchRoot {
  readonly root: string
  readonly guard: PathGuard
  /** Where .gitignore rules start: the workspace when the root is inside it, else the root. */
  readonly ignoreBase: string
}

/** The directory or file to search, checked to exist inside the guard. */
export async function searchRoot(ctx: ToolCallContext, named: string | undefined): Promise<SearchRoot> {
  const root = named ?? ctx.workspace
  const guard = await createPathGuard(ctx, root ?? '')
  if (root === undefined) throw new FileToolError(NO_WORKSPACE, 'No workspace is set for this session; give `path`.')
  const absolute = path.resolve(root)
  await assertAllowed(guard, absolute)
  const info = await stat(absolute).catch(() => undefined)
  if (info === undefined) throw new FileToolError('TOOL_ERR_PATH_NOT_FOUND', `Path does not exist: ${absolute}`)
  const workspace = ctx.workspace === undefined ? undefined : path.resolve(ctx.workspace)
  const ignoreBase = workspace !== undefined && isWithin(workspace, absolute) ? workspace : absolute
  return { root: absolute, guard, ignoreBase }
}
