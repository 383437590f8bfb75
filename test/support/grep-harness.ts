/** A Grep tool behind a real executor, in a fresh workspace holding `files`. */
import path from 'node:path'
import type { TurnContext } from '../../src/contracts/ports.js'
import type { ToolExecutionResult } from '../../src/contracts/result.js'
import { FsArtifactStore } from '../../src/storage/fs-artifact-store.js'
import { createGrepTool } from '../../src/tools/grep/index.js'
import { InMemoryToolRegistry } from '../../src/tools/registry.js'
import { InMemoryFileStateStore } from '../../src/tools/services.js'
import { workspaceWith } from './permission-tools.js'
import { createTestExecutor } from './executor.js'

export type GrepCall = (input: Record<string, unknown>, turn?: Partial<TurnContext>) => Promise<ToolExecutionResult>

export async function grepHarness(name: string, files: Readonly<Record<string, string | Buffer>>): Promise<{ root: string; workspace: string; grep: GrepCall }> {
  const { root, workspace } = await workspaceWith(name, files)
  const executor = createTestExecutor({
    registry: new InMemoryToolRegistry([createGrepTool()]),
    artifacts: new FsArtifactStore({ dataDir: path.join(root, 'data') }),
    services: { fileState: new InMemoryFileStateStore() },
  })
  let next = 0
  const grep: GrepCall = (input, turn = {}) => executor.execute({ id: `g${++next}`, name: 'Grep', input }, { sessionId: 's1', workspace, ...turn })
  return { root, workspace, grep }
}
