/**
 * @module A tool's input as a readable tree rather than raw JSON: each key with its value,
 * objects and lists nested, strings as they read (line breaks kept, no escapes).
 */
const MAX_DEPTH = 6
const MAX_ITEMS = 200

function Leaf({ value }: { readonly value: unknown }) {
  if (typeof value === 'string') return <span class="tree-string">{value}</span>
  if (value === null || value === undefined) return <span class="tree-empty">{String(value)}</span>
  return <span class="tree-value">{JSON.stringify(value)}</span>
}

function Node({ value, depth }: { readonly value: unknown; readonly depth: number }) {
  if (typeof value !== 'object' || value === null || depth >= MAX_DEPTH) return <Leaf value={value} />
  const entries: [string, unknown][] = Array.isArray(value) ? value.map((item, index) => [String(index + 1), item]) : Object.entries(value)
  if (entries.length === 0) return <span class="tree-empty">{Array.isArray(value) ? 'empty list' : 'empty'}</span>
  return (
    <dl class="tree">
      {entries.slice(0, MAX_ITEMS).map(([key, item]) => (
        <div key={key}>
          <dt>{key}</dt>
          <dd>
            <Node value={item} depth={depth + 1} />
          </dd>
        </div>
      ))}
      {entries.length > MAX_ITEMS ? <p class="hint">and {entries.length - MAX_ITEMS} more (see the raw input)</p> : null}
    </dl>
  )
}

export function InputTree({ input }: { readonly input: unknown }) {
  return (
    <div class="input-tree" data-testid="approval-input-tree">
      <Node value={input} depth={0} />
    </div>
  )
}
