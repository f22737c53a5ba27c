/**
 * The chromium the browser tests drive (Debian's, through playwright-core): CHROMIUM_PATH,
 * else the Debian paths. Without one, the tests skip with CHROMIUM_SKIP, which says what
 * is missing and how to install it.
 */
import fs from 'node:fs'

const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter((p): p is string => !!p)
export const chromiumPath: string | undefined = CANDIDATES.find((p) => fs.existsSync(p))
export const CHROMIUM_SKIP: string | false = chromiumPath
  ? false
  : `no chromium found (${CANDIDATES.join(', ')}): install Debian's package (apt-get install chromium; .ci/run does) or set CHROMIUM_PATH; browser tests skipped`
if (!chromiumPath) console.log(`# ${CHROMIUM_SKIP}`)
