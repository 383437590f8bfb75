/**
 * @module The executor as a server with no permission client composes it: the permission mode
 * service and a broker that denies every ask (R17), unless a test brings its own. The executor
 * has no defaults for these; whoever composes it chooses them.
 */
import { createExecutor, type Executor } from '../../src/executor/executor.js'
import type { ExecutorPorts } from '../../src/executor/deps.js'
import { createDenyingBroker } from '../../src/permissions/brokers.js'
import { createModePermissionService } from '../../src/permissions/mode-permission-service.js'

export type TestExecutorPorts = Omit<ExecutorPorts, 'permissions' | 'broker'> & Partial<Pick<ExecutorPorts, 'permissions' | 'broker'>>

export function createTestExecutor(ports: TestExecutorPorts): Executor {
  return createExecutor({
    ...ports,
    permissions: ports.permissions ?? createModePermissionService(),
    broker: ports.broker ?? createDenyingBroker(),
  })
}
