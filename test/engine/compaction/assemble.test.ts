/** Assembling the output (src/engine/compaction/assemble.ts): what gives way when the real count is over the target. */
import t from 'tap'
import { linesCovering } from '../../../src/engine/compaction/assemble.ts'

t.test('over the target, the least valuable lines go: as many as their own tokens need, at least one', async (t) => {
  const lines = [{ tokens: 15 }, { tokens: 15 }, { tokens: 400 }, { tokens: 15 }]
  t.equal(linesCovering(lines, 20), 2, 'two short lines cover 20 tokens')
  t.equal(linesCovering(lines, 31), 3, 'the long line covers the rest')
  t.equal(linesCovering(lines, 0), 1, 'at least one')
  t.equal(linesCovering(lines, 10_000), 4, 'never more than there are')
  t.equal(linesCovering([{ tokens: 300 }, { tokens: 300 }, { tokens: 20 }], 250), 1, 'a long line counts for its size: one drop, not a dozen')
})
