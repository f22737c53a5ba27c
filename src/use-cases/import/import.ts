/** POST /import: reading a large log is CPU work, so the compute runner converts it (the pool; a small one inline). */
import type { ImportResult } from '../../engine/import/index.ts'
import type { Caller, UseCaseDeps } from '../deps.ts'
import type { ImportRequest } from './convert.ts'

export type ImportDeps = Pick<UseCaseDeps, 'compute'>

export function makeImport(deps: ImportDeps) {
  return function importAgentLog(caller: Caller, input: ImportRequest): Promise<ImportResult> {
    return deps.compute.run('import', input, { signal: caller.signal, bytes: caller.bodyBytes, tenant: caller.tenantId })
  }
}
