/** What a function throws (to match its fields with t.match), or 'nothing thrown'. */
export function thrown(fn: () => unknown): unknown {
  try {
    fn()
  } catch (err) {
    return err
  }
  return 'nothing thrown'
}
