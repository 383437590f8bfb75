import { it } from 'vitest'
import { startTestServer } from '../support/server.js'
it('scratch', async () => {
  for (let i = 0; i < 5; i++) {
    let t = performance.now()
    const s = await startTestServer({})
    const a = performance.now() - t; t = performance.now()
    await s.json('GET', '/healthz')
    const b = performance.now() - t; t = performance.now()
    await s.close()
    console.log('start', a.toFixed(0), 'req', b.toFixed(0), 'close', (performance.now() - t).toFixed(0))
  }
})
