export * from '../../facts/tools.ts'
