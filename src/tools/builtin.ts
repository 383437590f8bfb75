/** @module The built-in tool set the server registers (names as the model knows them). */
import type { ToolEntry } from '../contracts/tool-entry.js'
import { createBashTool, type BashToolOptions } from './bash/index.js'
import { createEditTool } from './edit/index.js'
import { createEnterPlanModeTool } from './enter-plan-mode/index.js'
import { createExitPlanModeTool } from './exit-plan-mode/index.js'
import { createGlobTool } from './glob/index.js'
import { createGrepTool } from './grep/index.js'
import { createReadTool } from './read/index.js'
import { createSubmitResultTool } from './submit-result/index.js'
import { createTaskOutputTool } from './task-output/index.js'
import { createTaskStopTool } from './task-stop/index.js'
import { createTodoWriteTool } from './todo-write/index.js'
import { createWebFetchTool } from './web-fetch/index.js'
import { createWriteTool } from './write/index.js'

/** `sandbox`: whether Bash commands can be confined (sandbox-probe.ts); probed in `auto` mode when absent. */
export function builtinTools(options: BashToolOptions = {}): ToolEntry[] {
  const tools: ToolEntry[] = [
    createReadTool(),
    createWriteTool(),
    createEditTool(),
    createGlobTool(),
    createGrepTool(),
    createBashTool(options),
    createTaskOutputTool(),
    createTaskStopTool(),
    createWebFetchTool(),
    createTodoWriteTool(),
    createEnterPlanModeTool(),
    createExitPlanModeTool(),
    createSubmitResultTool(),
  ]
  return tools
}
