// A worker thread does not inherit the TypeScript loader of the thread that started it
// (neither tsx's nor vitest's), so the worker loads its TypeScript through tsx itself.
import { tsImport } from 'tsx/esm/api'

await tsImport('./grep-worker.ts', import.meta.url)
