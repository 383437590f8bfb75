/**
 * @module A shell command, lightly highlighted for reading: the operators that join commands
 * (`&&`, `||`, `;`, `|`) stand out, each command's program is bold, options and quoted text
 * are coloured. Only a reading aid: what runs is decided by the server's own parser.
 */
const TOKEN = /(\s+)|(&&|\|\||[;|&])|('(?:[^']*)'?|"(?:\\.|[^"\\])*"?)|([^\s;&|'"]+)/g

export type CommandPiece = { readonly kind: 'space' | 'operator' | 'quoted' | 'program' | 'option' | 'word'; readonly text: string }

export function commandPieces(command: string): CommandPiece[] {
  const pieces: CommandPiece[] = []
  let expectProgram = true
  for (const match of command.matchAll(TOKEN)) {
    const [text, space, operator, quoted] = match
    if (space !== undefined) pieces.push({ kind: 'space', text })
    else if (operator !== undefined) {
      pieces.push({ kind: 'operator', text })
      expectProgram = true
    } else if (quoted !== undefined) {
      pieces.push({ kind: 'quoted', text })
      expectProgram = false
    } else {
      // An assignment before the program (`FOO=1 make`) leaves the program to come.
      const assignment = expectProgram && /^[A-Za-z_][A-Za-z0-9_]*=/.test(text)
      pieces.push({ kind: expectProgram && !assignment ? 'program' : text.startsWith('-') ? 'option' : 'word', text })
      if (!assignment) expectProgram = false
    }
  }
  return pieces
}

export function HighlightedCommand({ command }: { readonly command: string }) {
  return (
    <pre class="command" data-testid="approval-command">
      <code>
        {commandPieces(command).map((piece, index) =>
          piece.kind === 'space' || piece.kind === 'word' ? (
            piece.text
          ) : (
            <span key={index} class={`sh-${piece.kind}`}>
              {piece.text}
            </span>
          ),
        )}
      </code>
    </pre>
  )
}
