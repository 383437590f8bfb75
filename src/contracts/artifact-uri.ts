/** @module The URI that names an artifact (`toolexec-artifact://session/artifact`): made by the artifact store, read back by the model-format replies. */

export const ARTIFACT_URI_SCHEME = 'toolexec-artifact:'

export function artifactUri(sessionId: string, id: string): string {
  return `${ARTIFACT_URI_SCHEME}//${encodeURIComponent(sessionId)}/${encodeURIComponent(id)}`
}

/** The session and artifact ids an `artifactUri` names; undefined for any other text. */
export function parseArtifactUri(uri: string): { sessionId: string; artifactId: string } | undefined {
  const match = /^toolexec-artifact:\/\/([^/]+)\/([^/]+)$/.exec(uri)
  if (match === null) return undefined
  return { sessionId: decodeURIComponent(match[1] ?? ''), artifactId: decodeURIComponent(match[2] ?? '') }
}
