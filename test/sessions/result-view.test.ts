/** A result as a reply shows it: each text once, and only what is truly a repeat left out. */
import { describe, expect, it } from 'vitest'
import type { Display } from '../../src/contracts/display.js'
import type { ToolExecutionResult } from '../../src/contracts/result.js'
import { resultView } from '../../src/sessions/result-view.js'
import { omissionMarker } from '../../src/tools/bash/captured-output.js'

function result(modelContent: ToolExecutionResult['modelContent'], output: unknown, display?: Display): ToolExecutionResult {
  const base: ToolExecutionResult = {
    callId: 'c1',
    toolName: 'Bash',
    success: true,
    status: 'succeeded',
    isError: false,
    modelContent,
    output,
    serialization: { truncated: false, originalBytes: 1, actualBytes: 1, strategy: 'inline' },
    perf: { totalMs: 1, permissionWaitMs: 0, queuedMs: 0 },
    permission: 'none',
    hookContext: [],
  }
  return display === undefined ? base : { ...base, display }
}

const bashDisplay = (output: string): Display => ({ kind: 'bash_output', command: 'x', output, exitCode: 0, truncated: true, originalBytes: 99 })

describe('resultView', () => {
  it('R37 leaves out modelContent, and an output equal to it (text or blocks)', () => {
    expect(resultView(result('text', 'text'))).toEqual({ ...withoutTexts(result('text', 'text')), outputIsModelContent: true })
    const blocks = [
      { type: 'text' as const, text: 'Image a.png' },
      { type: 'image' as const, mediaType: 'image/png', artifactUri: 'toolexec-artifact://s/a' },
    ]
    expect(resultView(result(blocks, structuredClone(blocks)))).toMatchObject({ outputIsModelContent: true })
    expect(resultView(result(blocks, structuredClone(blocks)))).not.toHaveProperty('output')
  })

  it('R37 keeps of an output.output text only what follows the model content it begins with, and the other output fields', () => {
    const view = resultView(result('1\n2', { command: 'seq 1 2', output: '1\n2\n', exitCode: 0 }))
    expect(view).toEqual({ ...withoutTexts(result('', undefined)), output: { command: 'seq 1 2', output: '\n', exitCode: 0 }, outputAfterModelContent: true })
    expect(resultView(result('1\n2', { output: '1\n2' }))).toMatchObject({ output: { output: '' }, outputAfterModelContent: true })
    // A text that differs from its first character on, or an empty model content, stays whole.
    for (const modelContent of ['x1\n2', '']) {
      const whole = resultView(result(modelContent, { output: '1\n2\n' }))
      expect(whole).toMatchObject({ output: { output: '1\n2\n' } })
      expect(whole).not.toHaveProperty('outputAfterModelContent')
    }
  })

  it('keeps an output that differs from the model content, and a result without output as it is', () => {
    const view = resultView(result('<persisted-output>...', 'the whole text'))
    expect(view).toMatchObject({ output: 'the whole text' })
    expect(view).not.toHaveProperty('outputIsModelContent')
    expect(view).not.toHaveProperty('modelContent')
    expect(resultView(result('x', undefined))).toEqual(withoutTexts(result('x', undefined)))
  })

  it('R38 cuts from output.output the end that is display.output, and gives omitted head and tail as headLength', () => {
    const head = 'head-'.repeat(10)
    const tail = 'tail-'.repeat(20)
    const text = head + omissionMarker(500) + tail
    const shown = tail.slice(-30)
    const view = resultView(result('envelope', { output: text, exitCode: 0, omitted: { head, tail, bytes: 500 } }, bashDisplay(shown)))
    expect(view.outputRestInDisplay).toBe(true)
    expect(view.output).toEqual({ output: text.slice(0, text.length - 30), exitCode: 0, omitted: { bytes: 500, headLength: head.length } })
    expect((view.output as { output: string }).output + shown).toBe(text)
  })

  it('leaves output.output whole when it does not end with the display, and omitted parts that do not make the text', () => {
    const omitted = { head: 'a', tail: 'b', bytes: 7 }
    const view = resultView(result('envelope', { output: 'something else', omitted }, bashDisplay('not its end')))
    expect(view.output).toEqual({ output: 'something else', omitted })
    expect(view).not.toHaveProperty('outputRestInDisplay')
    // A display that is the whole output leaves an empty text and says so.
    const whole = resultView(result('envelope', { output: 'all of it' }, bashDisplay('all of it')))
    expect(whole).toMatchObject({ output: { output: '' }, outputRestInDisplay: true })
  })
})

function withoutTexts(full: ToolExecutionResult): Omit<ToolExecutionResult, 'modelContent' | 'output'> {
  const { modelContent: _model, output: _output, ...rest } = full
  return rest
}
