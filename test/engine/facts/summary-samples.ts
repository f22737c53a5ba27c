/** Hand-written earlier summaries, one per source, written the way each agent writes them. */

export const CLAUDE = `This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:
Analysis:
Let me chronologically analyze the conversation. The user first asked for a cache fix, then for tests.

Summary:
1. Primary Request and Intent:
   The user asked to fix the crash in src/cache.ts when the cache is cold, without changing the public API.
   Later they asked for a regression test.

2. Key Technical Concepts:
   - LRU eviction with a TTL
   - Vitest with fake timers

3. Files and Code Sections:
   - \`src/cache.ts\`
      - Why important: holds the cold-start path that crashed
      - Changes: guard against an undefined entry in get()
      \`\`\`ts
      if (!entry) return undefined
      \`\`\`
   - test/cache.test.ts
      - Added a cold-cache regression test

4. Errors and fixes:
    - **TypeError: Cannot read properties of undefined (reading 'value')**:
      - Fixed by returning early when the entry is missing.
      - User feedback: "don't swallow other errors"

5. Problem Solving:
   Chose an early return over a try/catch so other errors still surface.

6. All user messages:
    - "Fix the crash in src/cache.ts when the cache is cold. Do not change the public API."
    - "add a regression test too"

7. Pending Tasks:
   - Run the full test suite
   - Update the CHANGELOG

8. Current Work:
   Writing the regression test in test/cache.test.ts; it fails before the fix and passes after.

9. Optional Next Step:
   Run npm test and report the result, as the user asked: "add a regression test too".

If you need specific details from before compaction (like exact code snippets, error messages, or content you generated), read the full transcript at: /home/u/.claude/projects/x/abc.jsonl
Please continue the conversation from where we left it off without asking the user any further questions. Continue with the last task that you were asked to work on.`

export const CODEX = `Another language model started to solve this problem and produced a summary of its thinking process. You also have access to the state of the tools that were used by that language model. Use this to build on the work that has already been done and avoid duplicating work. Here is the summary produced by the other language model, use the information in this summary to  assist with your own analysis:
The user wants multimodal support in the Knowledge class.

Goal:
- Add image embeddings to Knowledge.insert()

Progress and key decisions:
- Added Document.media (libs/agno/agno/knowledge/document/base.py)
- Decided to keep text embedders unchanged

Next steps:
1. Add PgVector support
2. Write tests in libs/agno/tests/unit/test_knowledge.py`

export const CODEX_BRIDGE = `You were originally given instructions from a user over one or more turns. Here were the user messages:

Review this plan for multimodal Knowledge support.

Also check the vector DBs.

${CODEX}`

export const GEMINI_OLD = `<state_snapshot>
    <overall_goal>
        Refactor the authentication service to use the 'jose' library.
    </overall_goal>
    <key_knowledge>
        - Build Command: \`npm run build\`
        - Testing: Tests are run with \`npm test\`. Test files must end in \`.test.ts\`.
    </key_knowledge>
    <file_system_state>
        - CWD: \`/home/user/project/src\`
        - READ: \`package.json\` - Confirmed 'axios' is a dependency.
        - MODIFIED: \`services/auth.ts\` - Replaced 'jsonwebtoken' with 'jose'.
        - CREATED: \`tests/new-feature.test.ts\` - Initial test structure for the new feature.
    </file_system_state>
    <recent_actions>
        - Ran \`grep 'old_function'\` which returned 3 results in 2 files.
        - Ran \`npm run test\`, which failed due to a snapshot mismatch in \`UserProfile.test.ts\`.
    </recent_actions>
    <current_plan>
        1. [DONE] Identify all files using the deprecated 'UserAPI'.
        2. [IN PROGRESS] Refactor \`src/components/UserProfile.tsx\` to use the new 'ProfileAPI'.
        3. [TODO] Refactor the remaining files.
    </current_plan>
</state_snapshot>`

export const PI = `## Goal
- Add a dark mode toggle to the settings page

## Constraints & Preferences
- Keep the existing CSS variables

## Progress
### Done
- [x] Added \`theme\` to the settings store

### In Progress
- Wiring the toggle into Settings.tsx

### Blocked
- None

## Key Decisions
- **CSS variables over a theme provider**: fewer re-renders

## Next Steps
1. Persist the choice in localStorage

## Critical Context
- The store lives in src/store/settings.ts

<read-files>
/repo/src/store/settings.ts
/repo/src/pages/Settings.tsx:1-80
</read-files>
<modified-files>
/repo/src/store/settings.ts
</modified-files>`

export const COMPACTD = `## Session Summary (Compaction Round 3)

### Original Task
Fix the crash in src/cache.ts when the cache is cold. Do not change the public API.
Later requests (verbatim):
- "add a regression test too"
- "use vitest, not jest" (earlier)

### Completed Work
| File | Action | Description |
|---|---|---|
| src/cache.ts | modified | guard in get() |
| test/cache.test.ts | created | cold-cache test |
- Reproduced the crash with a cold cache

### Files
| File | Fate | What changed |
|---|---|---|
| src/lru.ts | earlier | eviction order fixed |

### Key Technical Decisions
- Root cause: get() read entry.value before checking the entry
- Early return instead of try/catch (earlier)

### Current State
- Working on: the regression test
- Last command: \`npm test\` → exit 1

### Pending Work
- [ ] Update the CHANGELOG
- [ ] Run the full suite (earlier)

### Errors & Resolutions
- \`npm test\` → exit 1: TypeError: Cannot read properties of undefined
    at get (src/cache.ts:42:17)

### Important Notes
- The TTL clock is mocked globally in test/setup.ts

### Commands Run
- \`npm test\` (×3, last exit 1)

_This summary integrates 2 earlier compaction rounds (claude-code, compactd)._

### Earlier Actions (oldest first, condensed)
- (4 less important entries omitted; the summary above covers them)
- user: "check the TTL path too"
- read src/cache.ts
- \`npm test\` → exit 1`

export const ROLLING = `## Previously in This Session
1. Fixed the cold-cache crash in src/cache.ts (2026-06-12 10:00-11:30, ~12k tokens) <!-- at=2026-06-12T11:30:00.000Z since=2026-06-12T10:00:00.000Z i=h k=fix f=src/cache.ts,test/cache.test.ts -->
2. Chose vitest over jest (2026-06-12 11:45, ~1k tokens) <!-- at=2026-06-12T11:45:00.000Z i=m k=decision -->

## Yesterday
1. Set up the repository and CI <!-- at=2026-06-11T09:00:00.000Z i=m k=feature -->

## This Week
1. Explored the LRU design (Mon, ~3k tokens) <!-- at=2026-06-08T09:00:00.000Z i=l -->

## Continuation
Current task: Add a regression test for the cold cache
Completed:
- Guard in get()
Pending:
- Update the CHANGELOG
Key decisions:
- Early return instead of try/catch
Relevant files: src/cache.ts, test/cache.test.ts
`

export const CONTINUATION_PROMPT = `[Previous Session Context]
Current task: Add a regression test for the cold cache
Completed: Guard in get(), Reproduced the crash
Pending: Update the CHANGELOG
Key decisions: Early return; vitest over jest
Relevant files: src/cache.ts, test/cache.test.ts`

export const COPILOT = `Some of the conversation history has been summarized to free up context.

You were originally given instructions from a user over one or more turns. Here were the user messages:
<user_message>
Fix the login bug
</user_message>

Here is a summary of the prior context:
<summary>
## Current State
- The login form now validates the email
## Next Steps
- Add a test
</summary>`
