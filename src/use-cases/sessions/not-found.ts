import { ApiError } from '../../errors.ts'

/** Another tenant's session reads as no session at all. */
export const sessionNotFound = (id: string) => new ApiError(404, 'not_found', `no session ${JSON.stringify(id)}`)
