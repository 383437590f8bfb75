import { it } from 'vitest'
import { startTestServer } from '../support/server.js'
import { openSse } from '../support/sse-client.js'
it('scratch', async () => {
  let t = Date.now()
  const s = await startTestServer({})
  console.log('start', Date.now() - t); t = Date.now()
  await s.json('POST', '/sessions', { id: 'a' })
  const sse = await openSse(s.url, 'a')
  console.log('open', Date.now() - t); t = Date.now()
  await sse.close()
  console.log('sse close', Date.now() - t); t = Date.now()
  for (let i = 0; i < 50; i++) { if (s.runtime.ctx.bus.subscriberCount('a') === 0) break; await new Promise(r => setTimeout(r, 10)) }
  console.log('unsub', Date.now() - t, s.runtime.ctx.bus.subscriberCount('a')); t = Date.now()
  await s.close()
  console.log('server close', Date.now() - t); t = Date.now()
})
