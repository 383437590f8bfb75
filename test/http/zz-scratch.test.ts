import { it } from 'vitest'
import { startTestServer } from '../support/server.js'
import { openSse } from '../support/sse-client.js'
it('scratch', async () => {
  const s = await startTestServer({ heartbeatMs: 200 })
  try {
    const sse0 = await openSse(s.url, 'nope')
    console.log('404', sse0.status, sse0.body, sse0.headers.get('content-type'))
    const a = await s.json('POST', '/schedules', { sessionId: 's1', calls: [{ id: 'c1', name: 'Read', input: { file_path: 'a' } }, { id: 'c2', name: 'Edit', input: { file_path: 'b' } }, { id: 'c3', name: 'Nope', input: {} }] })
    console.log(JSON.stringify(a, null, 1))
    const sse = await openSse(s.url, 's1')
    console.log(sse.status, [...sse.headers])
    const perm = await sse.waitForType('PermissionRequested')
    console.log(perm)
    const pid = JSON.parse(perm.data).permissionId
    console.log(JSON.stringify(await s.json('GET', '/permissions?status=pending')))
    console.log(JSON.stringify(await s.json('GET', '/sessions/s1')))
    console.log(JSON.stringify(await s.json('POST', `/permissions/${pid}`, { decision: 'deny', message: 'no way' })))
    console.log(JSON.stringify(await s.json('POST', `/permissions/${pid}`, { decision: 'allow' })))
    const w = await s.json('GET', `/schedules/${(a.body as any).scheduleId}?wait=5`)
    console.log(JSON.stringify(w, null, 1))
    await new Promise((r) => setTimeout(r, 500))
    console.log(sse.frames.map((f) => `${f.id} ${f.event} ${f.data.slice(0, 300)}`).join('\n'))
    console.log('comments', sse.comments)
    await sse.close()
    console.log(JSON.stringify(await s.json('GET', '/sessions/s1/history'), null, 1).slice(0, 3000))
    console.log(JSON.stringify(await s.json('GET', '/nope')))
    console.log(JSON.stringify(await s.json('POST', '/sessions', { bogus: 1 })))
  } finally { await s.close() }
})
