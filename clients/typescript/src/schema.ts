/**
 * Generated from openapi.yaml by clients/generate.ts (openapi-typescript): do not edit.
 * `npm run openapi` regenerates it; test/clients/typescript.test.ts fails when it is stale.
 */

export interface paths {
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Prometheus metrics: summary updates, queue, compactions, HTTP latency
         * @description Prometheus text exposition format, not rate limited. With METRICS_TOKEN set it needs `Authorization: Bearer <METRICS_TOKEN>` (an API key is a 401); unset, it is public: restrict it at the network level. It holds totals only, no tenant, session or content. See docs/operations.md.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Liveness: the process is up */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "ok";
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Readiness: the database answers and every migration is applied */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "ready";
                            database: string;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "unavailable";
                            /** @enum {string} */
                            error: "not_ready";
                            message: string;
                            database: string;
                            requestId: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/estimate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Count a conversation's tokens and check it against the compaction threshold */
        post: {
            parameters: {
                query?: {
                    /** @description `false` leaves `perMessage` out of the answer: the totals only, a smaller and faster answer for a caller that checks the threshold every turn. Default true. */
                    perMessage?: "true" | "false";
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["EstimateRequestInput"];
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["EstimateResponse"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/strategies": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The compaction strategies this server knows, its default pipeline, and the pipelines a menu offers */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["StrategiesResponse"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/compact": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Compact a conversation to a token budget, keeping tool calls paired and recent messages verbatim */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["CompactRequestInput"];
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["CompactResponse"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/import": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Convert an agent session log (Claude Code, Codex CLI, Gemini CLI, pi, SWE-agent) into messages, with the compactions it records
         * @description Broken or unknown lines are reported in `issues` and skipped, never fatal. A body that is no log at all is a 400 `invalid_log` naming the field. See docs/api.md#post-import.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["ImportRequestInput"];
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ImportResponse"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sessions/{id}/checkpoints": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A session's checkpoints, newest first, paginated */
        get: {
            parameters: {
                query?: {
                    /** @description `nextCursor` of the previous page. */
                    cursor?: string;
                    /** @description Page size, 1-100. Default 20. */
                    limit?: number;
                };
                header?: never;
                path: {
                    /** @description The sessionId given to POST /compact. */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["CheckpointPage"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sessions/{id}/checkpoints/{num}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One checkpoint of a session */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The sessionId given to POST /compact. */
                    id: string;
                    /** @description The checkpoint number. */
                    num: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Checkpoint"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sessions/{id}/stats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A session's compaction totals: tokens saved, summary cost, checkpoints */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The sessionId given to POST /compact. */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["SessionStats"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sessions/{id}/breaker/reset": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Close a session's compaction circuit breaker and clear its history
         * @description Automatic compactions (the proxy, GET /context) of the session run again. A successful manual compaction (POST /compact with the sessionId) does the same.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The sessionId given to POST /compact. */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["BreakerReset"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sessions/{id}/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Search a session's archive: the messages its compactions masked, summarised or dropped */
        get: {
            parameters: {
                query: {
                    /** @description Natural language or keywords, as an agent writes them. Any word may match; results rank by relevance (BM25-like). */
                    q: string;
                    /** @description Hits returned (default 5, at most 50). */
                    limit?: number;
                };
                header?: never;
                path: {
                    /** @description The sessionId given to POST /compact, or a session of /sessions. */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ArchiveSearch"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sessions/{id}/archive/{ref}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read one archived message back, whole or by lines */
        get: {
            parameters: {
                query?: {
                    /** @description Return the message in this format (default: the format it was sent in). */
                    format?: "openai" | "anthropic" | "ai-sdk" | "responses";
                    /** @description Only these lines of the message's text: `120-180` or `120`. */
                    lines?: string;
                    /** @description Only the lines of the message's text containing this string (case-insensitive, not a pattern), with their numbers. */
                    grep?: string;
                    /** @description With grep: lines of context around each match. */
                    context?: number;
                };
                header?: never;
                path: {
                    id: string;
                    /** @description A reference from a placeholder, the action log or a search hit. */
                    ref: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ArchivedMessage"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sessions/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A session's settings and counters */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The session id, chosen by the caller (1-200 characters from A-Z a-z 0-9 . _ : -). */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Session"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        /** Create a session or update its settings (window, summary budget, batch size, mode) */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The session id, chosen by the caller (1-200 characters from A-Z a-z 0-9 . _ : -). */
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["SessionSettingsRequestInput"];
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Session"];
                    };
                };
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Session"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        post?: never;
        /** Delete a session: messages, summaries, checkpoints and queued work, in one transaction */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The session id, chosen by the caller (1-200 characters from A-Z a-z 0-9 . _ : -). */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Deleted. */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sessions/{id}/messages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A session's stored messages, oldest first, paged (status=window: the recent window) */
        get: {
            parameters: {
                query?: {
                    /** @description Only messages in this state: the recent `window`, `evicted` awaiting summary, or `summarized`. Default: all. */
                    status?: "window" | "evicted" | "summarized";
                    /** @description `nextCursor` of the previous page. */
                    cursor?: string;
                    /** @description Page size, 1-200. Default 50. */
                    limit?: number;
                };
                header?: never;
                path: {
                    /** @description The session id. */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["SessionMessagePage"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        /**
         * Append messages; returns the window state (idempotent with an Idempotency-Key)
         * @description Creates the session on first use. Messages that fall out of the recent window are kept, marked evicted, and folded into the rolling summary in the background once batchSize exchanges have accumulated. With an `Idempotency-Key`, a retried request returns the first response (header `Idempotent-Replayed: true`) and appends nothing.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description Any unique string per logical append (e.g. a UUID). Reusing it with a different body is a 422. */
                    "idempotency-key"?: string;
                };
                path: {
                    /** @description The session id, chosen by the caller (1-200 characters from A-Z a-z 0-9 . _ : -). */
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["AppendMessagesRequestInput"];
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AppendMessagesResponse"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sessions/{id}/summary": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The current rolling summary (never waits on a running update)
         * @description Reads the last committed version without locks. When the database is unreachable, returns the last summary this process saw (if the database confirmed it within SUMMARY_FALLBACK_MAX_AGE_MS) with `stale` and `degraded` true; failing that, the placeholder "[Summary temporarily unavailable]" with status 503.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The session id, chosen by the caller (1-200 characters from A-Z a-z 0-9 . _ : -). */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["SessionSummary"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["SessionSummary"];
                    };
                };
            };
        };
        /** Replace the summary by hand (a new version; compare-and-set on baseVersion) */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The session id, chosen by the caller (1-200 characters from A-Z a-z 0-9 . _ : -). */
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["PutSummaryRequestInput"];
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["PutSessionSummaryResponse"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sessions/{id}/summary/refresh": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Queue a summary update now, at high priority */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The session id, chosen by the caller (1-200 characters from A-Z a-z 0-9 . _ : -). */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["SummaryRefresh"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sessions/{id}/context": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * What to send to the model now: system, summary, recent window, within a budget
         * @description The session's controls apply (PUT /sessions/:id): pinned messages are sent verbatim, preserved strings kept (a 422 `contract_unkept` when the budget cannot hold them), the focus and thinking policy given to its compaction, and its trigger decides whether it is compacted at all. While the session's compaction breaker is open, a context over the budget is a 409 `breaker_open` with Retry-After.
         */
        get: {
            parameters: {
                query?: {
                    /** @description Token budget of the context (counted for the session's model). Default: the model's compaction threshold, as /estimate computes it. */
                    budget?: number;
                    /** @description Format to return the messages in. Default: the session's format. */
                    format?: "openai" | "anthropic" | "ai-sdk" | "responses";
                    /** @description Model to count tokens for. Default: the session's model. */
                    model?: string;
                };
                header?: never;
                path: {
                    /** @description The session id, chosen by the caller (1-200 characters from A-Z a-z 0-9 . _ : -). */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["SessionContext"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sessions/{id}/continuation": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Seed 003's continuation context: current task, steps, decisions, files, and a prompt block */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The session id, chosen by the caller (1-200 characters from A-Z a-z 0-9 . _ : -). */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["SessionContinuation"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The tenant's sessions and compaction series, searchable, sorted and paged
         * @description One row per id that is a session (PUT /sessions/:id, appends), a compaction series (POST /compact with a sessionId), or both, with its counters.
         */
        get: {
            parameters: {
                query?: {
                    /** @description Only ids containing this text (case-insensitive). */
                    q?: string;
                    /** @description Sort key. Default lastActivity. */
                    sort?: "lastActivity" | "id" | "messageCount" | "checkpoints" | "tokensSaved" | "summaryTokens" | "summaryVersion" | "updateFailures";
                    /** @description Default: desc (asc when sorting by id). */
                    order?: "asc" | "desc";
                    /** @description `nextCursor` of the previous page. */
                    cursor?: string;
                    /** @description Page size, 1-200. Default 50. */
                    limit?: number;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["SessionList"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sessions/{id}/summary/versions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A session's summary versions, newest first, paged (without their text) */
        get: {
            parameters: {
                query?: {
                    /** @description `nextCursor` of the previous page. */
                    cursor?: string;
                    /** @description Page size, 1-200. Default 50. */
                    limit?: number;
                };
                header?: never;
                path: {
                    /** @description The session id. */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["SummaryVersionPage"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sessions/{id}/summary/versions/{version}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One summary version, with its text */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The session id. */
                    id: string;
                    /** @description The version. */
                    version: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["SummaryVersion"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/formats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The message formats this server reads and writes */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["FormatsResponse"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/display": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Messages of any format in one display form
         * @description One display message per element of `messages` (a Responses item is one), and the top-level `system` when given. A message its format refuses is shown with its role and JSON. Used by the dashboard.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["DisplayRequestInput"];
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["DisplayResponse"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/chat/completions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** OpenAI-compatible /v1/chat/completions: compacted past the model's threshold, then passed on to the provider (streaming included) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["ProxyChatCompletionsRequestInput"];
                };
            };
            responses: {
                /** @description The provider's response, passed through with its status and headers, plus x-compactd-* headers. */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": unknown;
                    };
                };
                /** @description The endpoint's provider error shape: OpenAI `{ error: { message, type, param, code } }`; Anthropic `{ type: 'error', error: { type, message } }`. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description The endpoint's provider error shape: OpenAI `{ error: { message, type, param, code } }`; Anthropic `{ type: 'error', error: { type, message } }`. */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description The endpoint's provider error shape: OpenAI `{ error: { message, type, param, code } }`; Anthropic `{ type: 'error', error: { type, message } }`. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description The endpoint's provider error shape: OpenAI `{ error: { message, type, param, code } }`; Anthropic `{ type: 'error', error: { type, message } }`. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description The endpoint's provider error shape: OpenAI `{ error: { message, type, param, code } }`; Anthropic `{ type: 'error', error: { type, message } }`. */
                502: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description The endpoint's provider error shape: OpenAI `{ error: { message, type, param, code } }`; Anthropic `{ type: 'error', error: { type, message } }`. */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/messages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Anthropic-compatible /v1/messages: compacted past the model's threshold, then passed on to the provider (streaming included) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["ProxyMessagesRequestInput"];
                };
            };
            responses: {
                /** @description The provider's response, passed through with its status and headers, plus x-compactd-* headers. */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": unknown;
                    };
                };
                /** @description The endpoint's provider error shape: OpenAI `{ error: { message, type, param, code } }`; Anthropic `{ type: 'error', error: { type, message } }`. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description The endpoint's provider error shape: OpenAI `{ error: { message, type, param, code } }`; Anthropic `{ type: 'error', error: { type, message } }`. */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description The endpoint's provider error shape: OpenAI `{ error: { message, type, param, code } }`; Anthropic `{ type: 'error', error: { type, message } }`. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description The endpoint's provider error shape: OpenAI `{ error: { message, type, param, code } }`; Anthropic `{ type: 'error', error: { type, message } }`. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description The endpoint's provider error shape: OpenAI `{ error: { message, type, param, code } }`; Anthropic `{ type: 'error', error: { type, message } }`. */
                502: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description The endpoint's provider error shape: OpenAI `{ error: { message, type, param, code } }`; Anthropic `{ type: 'error', error: { type, message } }`. */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/responses": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** OpenAI-compatible /v1/responses: compacted past the model's threshold, then passed on to the provider (streaming included) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["ProxyResponsesRequestInput"];
                };
            };
            responses: {
                /** @description The provider's response, passed through with its status and headers, plus x-compactd-* headers. */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": unknown;
                    };
                };
                /** @description The endpoint's provider error shape: OpenAI `{ error: { message, type, param, code } }`; Anthropic `{ type: 'error', error: { type, message } }`. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description The endpoint's provider error shape: OpenAI `{ error: { message, type, param, code } }`; Anthropic `{ type: 'error', error: { type, message } }`. */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description The endpoint's provider error shape: OpenAI `{ error: { message, type, param, code } }`; Anthropic `{ type: 'error', error: { type, message } }`. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description The endpoint's provider error shape: OpenAI `{ error: { message, type, param, code } }`; Anthropic `{ type: 'error', error: { type, message } }`. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description The endpoint's provider error shape: OpenAI `{ error: { message, type, param, code } }`; Anthropic `{ type: 'error', error: { type, message } }`. */
                502: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description The endpoint's provider error shape: OpenAI `{ error: { message, type, param, code } }`; Anthropic `{ type: 'error', error: { type, message } }`. */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/messages/count_tokens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Anthropic-compatible count_tokens, answered by compactd's own counter */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["ProxyCountTokensRequestInput"];
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ProxyCountTokensResponse"];
                    };
                };
                /** @description The endpoint's provider error shape: OpenAI `{ error: { message, type, param, code } }`; Anthropic `{ type: 'error', error: { type, message } }`. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description The endpoint's provider error shape: OpenAI `{ error: { message, type, param, code } }`; Anthropic `{ type: 'error', error: { type, message } }`. */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description The endpoint's provider error shape: OpenAI `{ error: { message, type, param, code } }`; Anthropic `{ type: 'error', error: { type, message } }`. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description The endpoint's provider error shape: OpenAI `{ error: { message, type, param, code } }`; Anthropic `{ type: 'error', error: { type, message } }`. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description The endpoint's provider error shape: OpenAI `{ error: { message, type, param, code } }`; Anthropic `{ type: 'error', error: { type, message } }`. */
                502: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description The endpoint's provider error shape: OpenAI `{ error: { message, type, param, code } }`; Anthropic `{ type: 'error', error: { type, message } }`. */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/models": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The provider's model list, passed through (Anthropic's when the request carries anthropic-version or x-api-key, else OpenAI's) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The provider's response, passed through with its status and headers, plus x-compactd-* headers. */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": unknown;
                    };
                };
                /** @description The endpoint's provider error shape: OpenAI `{ error: { message, type, param, code } }`; Anthropic `{ type: 'error', error: { type, message } }`. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description The endpoint's provider error shape: OpenAI `{ error: { message, type, param, code } }`; Anthropic `{ type: 'error', error: { type, message } }`. */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description The endpoint's provider error shape: OpenAI `{ error: { message, type, param, code } }`; Anthropic `{ type: 'error', error: { type, message } }`. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description The endpoint's provider error shape: OpenAI `{ error: { message, type, param, code } }`; Anthropic `{ type: 'error', error: { type, message } }`. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description The endpoint's provider error shape: OpenAI `{ error: { message, type, param, code } }`; Anthropic `{ type: 'error', error: { type, message } }`. */
                502: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description The endpoint's provider error shape: OpenAI `{ error: { message, type, param, code } }`; Anthropic `{ type: 'error', error: { type, message } }`. */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /**
         * @description Error body returned with every 4xx/5xx status.
         * @example {
         *       "error": "invalid_messages",
         *       "message": "messages[3].tool_call_id: required on role \"tool\"",
         *       "issues": [
         *         {
         *           "path": "messages[3].tool_call_id",
         *           "message": "required on role \"tool\""
         *         }
         *       ],
         *       "requestId": "req-1"
         *     }
         */
        ErrorInput: {
            /** @description Stable error code, e.g. `validation_error`, `invalid_messages`, `unauthorized`. */
            error: string;
            /** @description Human-readable explanation. */
            message: string;
            /** @description For validation errors: each problem with the path of the offending field. */
            issues?: {
                path: string;
                message: string;
            }[];
            /** @description Echo of the `x-request-id` of this request, for support. */
            requestId?: string;
        } & {
            [key: string]: unknown;
        };
        /** @description What this compaction archived: present when a sessionId was given and the conversation was compacted (not on a dry run). */
        ArchiveReportInput: {
            /**
             * @description `archived`: what this compaction dropped is stored and searchable. `over_quota`: the tenant's archive is full, nothing was archived and no references were printed. `disabled`: ARCHIVE_ENABLED is off.
             * @enum {string}
             */
            status: "archived" | "over_quota" | "disabled";
            /** @description Messages stored by this compaction. */
            archived: number;
            /** @description Messages already in the session's archive (a resent history is archived once). */
            deduplicated: number;
            /** @description Secrets replaced by `[REDACTED:rule]` in the messages stored. */
            redactions: number;
            /** @description Bytes the stored messages take. */
            bytes: number;
            /** @description The tenant's archive size after this compaction. */
            usedBytes: number;
            /** @description ARCHIVE_QUOTA_BYTES. */
            quotaBytes: number;
            /** @description Why nothing was archived, when status is not `archived`. */
            reason?: string;
        };
        ArchiveHitInput: {
            /** @description The archived message: read it with GET /sessions/{id}/archive/{ref}. */
            ref: string;
            role: string;
            /** @description The tool whose output (or call) this is. */
            toolName: string | null;
            /** @description The passage around the best match, 300–800 characters (the whole text when shorter). */
            snippet: string;
            /** @description Relevance: higher is better; comparable within one search. */
            score: number;
            /** @description The checkpoint that archived it (null: a session's evicted message). */
            checkpointNum: number | null;
            /** @description Its index in the messages of that compaction (a session's seq for an evicted one). */
            position: number;
            /** @enum {string} */
            source: "compact" | "session" | "proxy";
        };
        /**
         * @example {
         *       "hits": [
         *         {
         *           "ref": "7hq2k9xa",
         *           "role": "tool",
         *           "toolName": "bash",
         *           "snippet": "…def _add_batch(self, batch): try: self._collection.upsert(**batch) except RateLimitError as e: time.sleep(2 ** attempt) …",
         *           "score": 0.42,
         *           "checkpointNum": 3,
         *           "position": 41,
         *           "source": "compact"
         *         }
         *       ],
         *       "terms": [
         *         "chroma",
         *         "ratelimiterror",
         *         "batch"
         *       ]
         *     }
         */
        ArchiveSearchInput: {
            hits: components["schemas"]["ArchiveHitInput"][];
            /** @description The words searched for, rarest first, after stopwords and words too common in this session to rank by. */
            terms: string[];
            /** @description Archived messages not searchable yet: the search indexes up to 2,000 before it reads, and says how many more wait (search again). */
            pending?: number;
        };
        /**
         * @example {
         *       "ref": "7hq2k9xa",
         *       "role": "tool",
         *       "toolName": "bash",
         *       "checkpointNum": 3,
         *       "position": 41,
         *       "source": "compact",
         *       "format": "openai",
         *       "text": "118\tdef _add_batch(self, batch):\n119\t    try:\n120\t        self._collection.upsert(**batch)",
         *       "totalLines": 2210,
         *       "truncated": false,
         *       "redactions": 0
         *     }
         */
        ArchivedMessageInput: {
            ref: string;
            role: string;
            toolName: string | null;
            checkpointNum: number | null;
            position: number;
            /** @enum {string} */
            source: "compact" | "session" | "proxy";
            /**
             * @description Format of `messages`.
             * @enum {string}
             */
            format: "openai" | "anthropic" | "ai-sdk" | "responses";
            /** @description The original message as sent (secrets redacted), in `format`; for an assistant message with tool calls, followed by their archived results, so the pair stays whole. Omitted when `lines` or `grep` is given. */
            messages?: unknown[];
            /** @description With `lines` or `grep`: the selected lines, each prefixed with its number and a tab. */
            text?: string;
            /** @description Lines in the message's text. */
            totalLines: number;
            /** @description With `grep`: lines that matched. */
            matchedLines?: number;
            /** @description True when the selection was cut at 64 KB: ask for a narrower `lines` range. */
            truncated: boolean;
            /** @description Secrets redacted in this message before it was archived. */
            redactions: number;
        };
        BreakerStatusInput: {
            /**
             * @description `open`: automatic compactions (the proxy, GET /context) of this session are refused.
             * @enum {string}
             */
            state: "closed" | "open";
            /** @description Why it opened. */
            reason?: string;
            /** @description Seconds until an automatic compaction is tried again. */
            retryAfterSeconds?: number;
            /** @description ISO 8601. */
            openedAt?: string;
            /** @description The latest automatic compactions since the last manual one or reset, oldest first: when, at how many messages, what they freed of which window. */
            recent: {
                at: string;
                messages: number;
                freedTokens: number;
                windowTokens: number;
            }[];
        };
        /**
         * @example {
         *       "sessionId": "agent-run-42",
         *       "checkpointNum": 3,
         *       "round": 3,
         *       "strategy": "rules",
         *       "fromMessageIndex": 2,
         *       "toMessageIndex": 13,
         *       "messagesCompressed": 12,
         *       "summary": "## Session Summary (Compaction Round 3)\n\n### Original Task\nFix the failing test in src/db.ts\n…",
         *       "keyFacts": {
         *         "currentTask": "Fix the failing test in src/db.ts",
         *         "completedSteps": [
         *           "edited test/db.test.ts: removed `afterEach(() => close())`",
         *           "ran npm test -- test/db.test.ts (ok)"
         *         ],
         *         "pendingSteps": [],
         *         "keyDecisions": [],
         *         "relevantFiles": [
         *           "test/db.test.ts",
         *           "src/db.ts",
         *           "src/pool.ts",
         *           "src/config.ts"
         *         ],
         *         "errors": [
         *           "npm test -- test/db.test.ts: Error: Called end on pool more than once (resolved)"
         *         ],
         *         "userRequests": []
         *       },
         *       "originalTokens": 7124,
         *       "compressedTokens": 422,
         *       "compressionRatio": 16.88,
         *       "summaryCostUsd": 0,
         *       "targetTokens": 1500,
         *       "model": "gpt-4o",
         *       "durationMs": 63,
         *       "summaryTokens": 308,
         *       "foldedFrom": null,
         *       "createdAt": "2026-11-22T13:23:20.601Z"
         *     }
         */
        CheckpointInput: {
            /** @description The session it belongs to. */
            sessionId: string;
            /** @description 1, 2, ... per session, gap-free in the order compactions were stored. */
            checkpointNum: number;
            /** @description Compaction round of the summary (null when the compaction only masked). */
            round: number | null;
            /** @description What produced it: a strategy of GET /strategies (mask, rules, llm, truncate). */
            strategy: string | null;
            /** @description First compacted message index of the compacted input. */
            fromMessageIndex: number | null;
            /** @description Last compacted message index of the compacted input. */
            toMessageIndex: number | null;
            /** @description Messages summarised or masked. */
            messagesCompressed: number | null;
            /** @description The summary text (`## Session Summary (Compaction Round N)` ...); empty when the compaction only masked. */
            summary: string;
            /** @description Continuation facts: currentTask, completedSteps, pendingSteps, keyDecisions, relevantFiles, errors, userRequests. */
            keyFacts: {
                [key: string]: unknown;
            } | null;
            /** @description Tokens of the conversation before compaction. */
            originalTokens: number | null;
            /** @description Tokens after. */
            compressedTokens: number | null;
            /** @description originalTokens / compressedTokens. */
            compressionRatio: number | null;
            /** @description Cost of the summarizer calls. */
            summaryCostUsd: number | null;
            /** @description The budget it compacted to (null on checkpoints stored before this field existed). */
            targetTokens: number | null;
            /** @description The model the tokens were counted for. */
            model: string | null;
            /** @description How long the compaction took, in milliseconds (folded: the sum). */
            durationMs: number | null;
            /** @description Tokens of the summary it wrote (null when it only masked, or for a fold). */
            summaryTokens: number | null;
            /** @description When older checkpoints were folded into this one (COMPACTION_MAX_CHECKPOINTS): every original checkpoint number it stands for, its own included. Totals are their sums. */
            foldedFrom: number[] | null;
            /** @description ISO 8601. */
            createdAt: string;
        };
        /**
         * @description A conversation to compact, and how.
         * @example {
         *       "model": "gpt-4o",
         *       "targetTokens": 3000,
         *       "keepRecent": 2,
         *       "sessionId": "agent-run-42",
         *       "messages": [
         *         {
         *           "role": "system",
         *           "content": "You are a coding agent."
         *         },
         *         {
         *           "role": "user",
         *           "content": "Fix the failing test in src/db.ts"
         *         },
         *         {
         *           "role": "assistant",
         *           "content": "Running the tests.",
         *           "tool_calls": [
         *             {
         *               "id": "call_2",
         *               "type": "function",
         *               "function": {
         *                 "name": "bash",
         *                 "arguments": "{\"command\":\"npm test -- test/db.test.ts\"}"
         *               }
         *             }
         *           ]
         *         },
         *         {
         *           "role": "tool",
         *           "tool_call_id": "call_2",
         *           "content": "FAILED test/db.test.ts > closes the pool\nError: Called end on pool more than once\n… 6,000 more characters …"
         *         },
         *         {
         *           "role": "assistant",
         *           "content": "The test fails because the pool is closed twice: close() runs in both afterEach and the shutdown hook. I removed the afterEach call."
         *         },
         *         {
         *           "role": "user",
         *           "content": "Good. Also make close() idempotent."
         *         }
         *       ]
         *     }
         */
        CompactRequestInput: {
            /** @description The conversation, in OpenAI Chat Completions, Anthropic Messages, Vercel AI SDK ModelMessage or OpenAI Responses (input items) format. The format is detected; `format` overrides. */
            messages: unknown[];
            /**
             * @description Message format. Detected automatically when omitted; a plain user/assistant string array is read as openai (identical in every format).
             * @enum {string}
             */
            format?: "openai" | "anthropic" | "ai-sdk" | "responses";
            /** @description Model the conversation is for (e.g. gpt-4o, claude-sonnet-4-5). Sets the limits and the tokenizer. Default: DEFAULT_MODEL. */
            model?: string;
            /** @description Anthropic-style top-level system prompt (string or text blocks). With other formats it counts as a leading system message. */
            system?: string | unknown[];
            /** @description Token budget the output must fit (counted like /estimate for `model`). Default: the model's compaction threshold, as /estimate returns it. */
            targetTokens?: number;
            /** @description Leading user turns kept verbatim (the original task). System messages before them are always kept. Default 1. */
            keepFirst?: number;
            /** @description Most recent messages kept verbatim; the boundary moves earlier rather than separate a tool call from its results. Given, the window is kept whenever it fits. Default 10 (COMPACTION_KEEP_RECENT), taking at most half of what the system prompt and task leave of the target when more would leave the summary under 1,000 tokens: past that it shrinks (the last message always stays) so the summary has room. */
            keepRecent?: number;
            /** @description Instead of keepRecent: keep the most recent messages up to this many tokens. Giving both is a 400. */
            keepRecentTokens?: number;
            /** @description A strategy or a pipeline, cheapest first (GET /strategies lists them). `mask`: replace old tool results with short placeholders; the calls stay. `rules`: offline structured summary (task, files, failures, decisions, next step), deterministic and free. `llm`: summary written by the configured model. `truncate`: keep the start and end of the text. The pipeline's summarizers fall back to rules → truncate. Default: COMPACTION_DEFAULT_STRATEGY; unset, `["mask","llm","rules"]` when the server has a summarizer configured (an OpenAI or Anthropic key), else `["mask","rules"]`. */
            strategy?: ("mask" | "rules" | "llm" | "truncate") | ("mask" | "rules" | "llm" | "truncate")[];
            /** @description The most recent tool results are never masked. Default 3. */
            keepToolResults?: number;
            /** @description Tools whose results are never masked (e.g. a memory or plan tool). */
            excludeTools?: string[];
            /** @description Also shorten tool-call arguments of masked calls: a token threshold, or true for 200. Default false. */
            clearToolInputs?: boolean | number;
            /** @description Keep error messages and failing commands of masked or summarised tool results. Default true. */
            preserveErrorDetails?: boolean;
            /** @description Cap on the summary sections (task, instructions, files, errors, decisions, state, pending work); never more than 15% of targetTokens. The action log appended to the same message uses what the rest of the budget leaves. Default 2000 (COMPACTION_MAX_SUMMARY_TOKENS). */
            maxSummaryTokens?: number;
            /**
             * @description Role of the summary message. Default user. With Anthropic, system/developer put it in the top-level `system`.
             * @enum {string}
             */
            summaryRole?: "system" | "developer" | "user" | "assistant";
            /** @description Which configured model writes the `llm` summary, so only with `llm` in strategy (or in COMPACTION_DEFAULT_STRATEGY when strategy is omitted): otherwise a 400 naming body.summarizer. Keys and base URLs come only from server configuration: any other field (baseURL, apiKey, url...) is a 400. Default: SUMMARIZER_DEFAULT_PROVIDER. */
            summarizer?: {
                /**
                 * @description Summarizer provider. One without an API key on the server is no usable summarizer: the llm step falls back, with the reason in `fallbacks`.
                 * @enum {string}
                 */
                provider: "openai" | "anthropic";
                /** @description One of the models the server allows (SUMMARIZER_OPENAI_MODELS / SUMMARIZER_ANTHROPIC_MODELS); another is a 400. Default: the first one. */
                model?: string;
            };
            /** @description Extra guidance for the summary (what to keep), for the llm strategy. */
            instructions?: string;
            /**
             * @description `append` adds instructions to the built-in summary prompt; `replace` replaces its guidance. Default append.
             * @enum {string}
             */
            instructionsMode?: "replace" | "append";
            /** @description What the summary should give room to (a subsystem, a decision, a file). Added to the default guidance, never replacing it: the llm prompt gets it as a section of its own; the rules summary ranks the action-log lines mentioning its words above the others of their importance. `instructions` with `instructionsMode: replace` stays the way to replace the prompt. */
            focus?: string;
            /** @description Indices (0-based, into `messages`) of messages kept verbatim, byte for byte, wherever they sit, with the tool calls or results they pair with. Checked on the output: what the budget cannot hold is a 422 `contract_unkept` listing it; an index past the end is a 400. */
            pin?: number[];
            /** @description Strings that must appear in the output (an identifier, a rule, a URL, a constraint). compactd keeps the latest message holding one when the summary does not; what the budget cannot hold is a 422 `contract_unkept`; a string not in the input is a 400 naming it. */
            preserve?: string[];
            /** @description Compact only when it saves at least this many tokens; otherwise the conversation comes back unchanged (compacted: false, with the reason). Wins over targetTokens: a small saving is not worth the prompt-cache break it costs. Checked on the plan before any summarizer is called. */
            minGainTokens?: number;
            /** @description The thinking policy: Anthropic thinking and redacted_thinking blocks, AI SDK reasoning parts and Responses reasoning items of earlier turns are dropped first, before any strategy. The turn in progress (the conversation ends with tool calls or results) keeps its reasoning, as Anthropic requires; pinned messages are not touched; a Responses reasoning item whose turn carries server item ids stays (the API refuses those items without it). The response reports the tokens freed (`thinking`). */
            thinking?: {
                /** @description Assistant turns (counted from the end) whose reasoning stays; `all` keeps every one; 0 drops all but the turn in progress. */
                keep: number | "all";
            };
            /** @description The prompt cache's state and prices: the event then reports what this compaction costs in cache writes against what it saves over the next requests (`event.cache`; docs/api.md has the arithmetic). */
            cache?: {
                /** @description Tokens of this conversation the provider has cached now (its usage's cached_tokens / cache_read_input_tokens). Default: all of it. */
                cachedPrefixTokens?: number;
                /** @description USD per million uncached input tokens. Default: the model registry's. */
                inputPrice?: number;
                /** @description USD per million cached tokens read. Default: the registry's input price times the provider's cache discount. */
                cacheReadPrice?: number;
                /** @description USD per million tokens written to the cache. Default: the input price (OpenAI, Google, DeepSeek) or 1.25× it (Anthropic, unknown models). */
                cacheWritePrice?: number;
                /** @description Requests over which the saving is counted, the next one included. Default 10. */
                horizonTurns?: number;
            };
            /**
             * @description `when-profitable`: compact only when the saving over `cache.horizonTurns` outweighs the cache writes (checked on the plan before a summarizer is paid, and on the result); otherwise compacted: false with the reason. Default always.
             * @enum {string}
             */
            cachePolicy?: "always" | "when-profitable";
            /** @description Return the plan and estimated result without changing anything, calling a model or storing a checkpoint. */
            dryRun?: boolean;
            /** @description Compact even when the conversation already fits targetTokens. A conversation smaller than any compaction of it could be comes back unchanged (compacted: false, with the reason). */
            force?: boolean;
            /** @description Your id for the conversation (1-200 characters of A-Z a-z 0-9 . _ : -). When given, each compaction is stored as a numbered checkpoint, and round numbers continue from the latest one. */
            sessionId?: string;
            /**
             * @description Input whose tool calls and results do not pair up: `repair` drops orphan results and answers missing ones (listed in `repairs`); `reject` is a 400. Default repair.
             * @enum {string}
             */
            onBrokenInput?: "repair" | "reject";
            /** @description Override the model's context window (e.g. for an unknown model). */
            contextLimit?: number;
            /** @description Tokens reserved for the system prompt and tools. Default 2000 (COMPACTION_SYSTEM_RESERVE). */
            systemReserve?: number;
            /** @description Tokens reserved for the reply. Default 4000 (COMPACTION_OUTPUT_RESERVE). */
            outputReserve?: number;
            /** @description Tokens kept free for estimation error. Default 5000 (COMPACTION_SAFETY_BUFFER). */
            safetyBuffer?: number;
            /** @description Fraction of the available window at which to compact. Default 0.8. */
            thresholdPercent?: number;
        };
        /**
         * @example {
         *       "compacted": true,
         *       "messages": [
         *         {
         *           "role": "system",
         *           "content": "You are a coding agent."
         *         },
         *         {
         *           "role": "user",
         *           "content": "Fix the failing test in src/db.ts"
         *         },
         *         {
         *           "role": "user",
         *           "content": "## Session Summary (Compaction Round 1)\n\n### Original Task\nFix the failing test in src/db.ts\n\n### Completed Work\n| File | Fate | What changed |\n|---|---|---|\n| test/db.test.ts | edited | +0/-1; removed `afterEach(() => close())` |\n\n### Errors & Resolutions\n- `npm test -- test/db.test.ts` → exit 1: Error: Called end on pool more than once — resolved: a later run of the same command succeeded\n    Error: Called end on pool more than once at Pool.end (node_modules/pg-pool/index.js:434:19) at close (src/pool.ts:4:14) Tests: 1 failed, 11 passed\n\n### Current State\n- Last change: test/db.test.ts (edited)\n- Last command: `npm test -- test/db.test.ts` → exit 0\n\n### Commands Run\n- `npm test -- test/db.test.ts` (×2, last exit 0, failed earlier)\n\n### Earlier Actions (oldest first, condensed)\n- read_file src/db.ts\n- bash npm test -- test/db.test.ts → exit 1: Error: Called end on pool more than once\n- read_file src/pool.ts\n- note: The pool is closed in afterEach and again by the shutdown hook.\n- edit_file test/db.test.ts (removed `afterEach(() => close())`)\n- read_file src/config.ts"
         *         },
         *         {
         *           "role": "assistant",
         *           "content": "Running the tests.",
         *           "tool_calls": [
         *             {
         *               "id": "call_6",
         *               "type": "function",
         *               "function": {
         *                 "name": "bash",
         *                 "arguments": "{\"command\":\"npm test -- test/db.test.ts\"}"
         *               }
         *             }
         *           ]
         *         },
         *         {
         *           "role": "tool",
         *           "tool_call_id": "call_6",
         *           "content": "Tests: 12 passed\nExit code 0"
         *         },
         *         {
         *           "role": "assistant",
         *           "content": "The test fails because the pool is closed twice: close() runs in both afterEach and the shutdown hook. I removed the afterEach call."
         *         },
         *         {
         *           "role": "user",
         *           "content": "Good. Also make close() idempotent."
         *         }
         *       ],
         *       "format": "openai",
         *       "model": "gpt-4o",
         *       "targetTokens": 1500,
         *       "strategy": "rules",
         *       "fallbacks": [],
         *       "repairs": [],
         *       "plan": [
         *         {
         *           "from": 0,
         *           "to": 1,
         *           "action": "keep",
         *           "reason": "system prompt and original task"
         *         },
         *         {
         *           "from": 2,
         *           "to": 11,
         *           "action": "summarize",
         *           "reason": "one-line digests in the summary's action log"
         *         },
         *         {
         *           "from": 12,
         *           "to": 13,
         *           "action": "condense",
         *           "reason": "tool results masked, inputs and prose condensed"
         *         },
         *         {
         *           "from": 14,
         *           "to": 15,
         *           "action": "keep",
         *           "reason": "recent messages"
         *         }
         *       ],
         *       "event": {
         *         "round": 1,
         *         "tokensBefore": 7124,
         *         "tokensAfter": 422,
         *         "compressionRatio": 16.88,
         *         "messagesCompacted": 12,
         *         "strategy": "rules",
         *         "summaryTokens": 308,
         *         "summaryRoomTokens": 320,
         *         "costUsd": 0,
         *         "durationMs": 63
         *       },
         *       "summary": {
         *         "text": "## Session Summary (Compaction Round 1)\n\n### Original Task\nFix the failing test in src/db.ts\n…",
         *         "keyFacts": {
         *           "currentTask": "Fix the failing test in src/db.ts",
         *           "completedSteps": [
         *             "edited test/db.test.ts: removed `afterEach(() => close())`",
         *             "ran npm test -- test/db.test.ts (ok)"
         *           ],
         *           "pendingSteps": [],
         *           "keyDecisions": [],
         *           "relevantFiles": [
         *             "test/db.test.ts",
         *             "src/db.ts",
         *             "src/pool.ts",
         *             "src/config.ts"
         *           ],
         *           "errors": [
         *             "npm test -- test/db.test.ts: Error: Called end on pool more than once (resolved)"
         *           ],
         *           "userRequests": []
         *         },
         *         "role": "user",
         *         "index": 2
         *       },
         *       "checkpoint": {
         *         "sessionId": "agent-run-42",
         *         "checkpointNum": 1
         *       }
         *     }
         */
        CompactResponseInput: {
            /** @description False when the input is returned unchanged (it fits, dry run, or compaction would not help). */
            compacted: boolean;
            /** @description Why nothing was changed, when compacted is false. */
            reason?: string;
            /** @description The conversation in the input format. Kept messages are byte-identical to the input objects. */
            messages: unknown[];
            /** @description Top-level system prompt: Anthropic output, or the `system` you sent (returned unchanged). */
            system?: unknown;
            /**
             * @description Format of `messages` (the input format).
             * @enum {string}
             */
            format: "openai" | "anthropic" | "ai-sdk" | "responses";
            /** @description Model the budget was counted for. */
            model: string;
            /** @description The budget used (the request's, or the model's compaction threshold). */
            targetTokens: number;
            /**
             * @description What produced the result: the summarizer that wrote the summary, `mask` when masking sufficed, `none` when unchanged.
             * @enum {string}
             */
            strategy: "mask" | "rules" | "llm" | "truncate" | "none";
            /** @description Strategies that were tried and failed or were unavailable, in order, with the reason (e.g. `rate_limited: openai gpt-4o-mini: rate limited (HTTP 429)`). */
            fallbacks: {
                strategy: string;
                reason: string;
            }[];
            /** @description Fixes applied to broken tool-call pairing in the input (onBrokenInput repair). */
            repairs: {
                index: number;
                action: string;
            }[];
            /** @description What happens to each range of input messages. */
            plan: {
                /** @description First input index (-1: the top-level system). */
                from: number;
                to: number;
                /** @enum {string} */
                action: "keep" | "mask" | "condense" | "summarize";
                reason: string;
            }[];
            /** @description Figures of this compaction, for monitoring. */
            event: {
                /** @description Compaction round: 1, or one more than the previous summary (in the input or the session). */
                round: number;
                tokensBefore: number;
                /** @description Tokens of the output (estimated for a dry run). */
                tokensAfter: number;
                /** @description tokensBefore / tokensAfter. */
                compressionRatio: number;
                messagesCompacted: number;
                strategy: string;
                /** @description Tokens of the summary message as sent: its sections and action log (the reserve, for a dry run). */
                summaryTokens: number;
                /** @description The room the summary message had: targetTokens less the rest of the output (head, kept turns, tail). summaryTokens against it is how much of the budget the summary left unused; 0 without a summary. */
                summaryRoomTokens: number;
                /** @description Cost of summarizer calls (0 offline). */
                costUsd: number;
                durationMs: number;
                /** @description The cache economics of this compaction (with `cache` or `cachePolicy`). */
                cache?: {
                    inputPrice: number;
                    cacheReadPrice: number;
                    cacheWritePrice: number;
                    tokensBefore: number;
                    tokensAfter: number;
                    cachedPrefixTokens: number;
                    /** @description The output's leading tokens that are the input's, unchanged: still cached. */
                    keptPrefixTokens: number;
                    horizonTurns: number;
                    /** @description Extra cache writes the next request pays because of the compaction. */
                    writeCostUsd: number;
                    summarizerCostUsd: number;
                    /** @description The next horizonTurns requests without compacting. */
                    costWithoutUsd: number;
                    /** @description The same requests after compacting, the summarizer included. */
                    costWithUsd: number;
                    /** @description costWithoutUsd − costWithUsd. */
                    savingUsd: number;
                    /** @description Requests after which the compaction has paid for itself; null: never. */
                    breakEvenTurns: number | null;
                    profitable: boolean;
                    /** @description true: the plan's estimate, checked before any summarizer was paid; false: the result's figures. */
                    estimated: boolean;
                };
            };
            /** @description The summary inserted, when one was written. */
            summary?: {
                /** @description The summary, starting with `## Session Summary (Compaction Round N)`. */
                text: string;
                /** @description Continuation facts read from the summary: task, steps done and pending, decisions, files, errors, later user requests. */
                keyFacts: {
                    currentTask: string;
                    completedSteps: string[];
                    pendingSteps: string[];
                    keyDecisions: string[];
                    relevantFiles: string[];
                    errors: string[];
                    userRequests: string[];
                };
                /** @description Role of the summary message. */
                role: string;
                /** @description Index of the summary message in `messages` (-1: in the top-level system). */
                index: number;
            };
            /** @description With `pin` or `preserve`: what the preservation contract checked (a 200 means all of it held). */
            contract?: {
                /** @description The pinned message indices, each checked present byte for byte. */
                pinned: number[];
                /** @description The preserved strings, each checked present. */
                preserved: string[];
            };
            /** @description What the thinking policy did. */
            thinking?: {
                keep: number | "all";
                /** @description Reasoning blocks or items removed. */
                blocksDropped: number;
                /** @description Messages whose reasoning was removed (a message of reasoning alone is removed whole). */
                messagesChanged: number;
                /** @description Reasoning the policy would drop but the provider's rules keep (Responses items tied to server ids). */
                keptForProvider: number;
                /** @description Tokens the removed reasoning took. */
                tokensFreed: number;
            };
            /** @description The checkpoint this compaction was stored as (sessionId given, compaction done). */
            checkpoint?: {
                sessionId: string;
                /** @description Number of the stored checkpoint (1, 2, ... per session, gap-free). */
                checkpointNum: number;
                /** @description Present when storing this checkpoint took the session over COMPACTION_MAX_CHECKPOINTS and the oldest were folded into one. */
                folded?: {
                    /** @description The checkpoint the oldest ones were folded into (it keeps its number). */
                    into: number;
                    /** @description Every original checkpoint number that checkpoint now stands for. */
                    from: number[];
                };
            };
            archive?: components["schemas"]["ArchiveReportInput"];
        };
        /**
         * @example {
         *       "strategies": [
         *         {
         *           "name": "mask",
         *           "description": "replace old tool results with short placeholders; the calls stay",
         *           "needsLlm": false,
         *           "summarizes": false,
         *           "keeps": true
         *         },
         *         {
         *           "name": "rules",
         *           "description": "offline structured summary (task, files, failures, decisions, next step), deterministic and free",
         *           "needsLlm": false,
         *           "summarizes": true,
         *           "keeps": false
         *         },
         *         {
         *           "name": "llm",
         *           "description": "summary written by the configured model",
         *           "needsLlm": true,
         *           "summarizes": true,
         *           "keeps": false
         *         },
         *         {
         *           "name": "truncate",
         *           "description": "keep the start and end of the text",
         *           "needsLlm": false,
         *           "summarizes": true,
         *           "keeps": false
         *         }
         *       ],
         *       "default": [
         *         "mask",
         *         "rules"
         *       ],
         *       "pipelines": [
         *         [
         *           "mask",
         *           "rules"
         *         ],
         *         [
         *           "mask"
         *         ],
         *         [
         *           "rules"
         *         ],
         *         [
         *           "mask",
         *           "llm"
         *         ],
         *         [
         *           "truncate"
         *         ]
         *       ]
         *     }
         */
        StrategiesResponseInput: {
            /** @description Every strategy `strategy` accepts, in the order of the docs. */
            strategies: {
                /** @enum {string} */
                name: "mask" | "rules" | "llm" | "truncate";
                description: string;
                /** @description Runs only with a summarizer model configured on the server; without one it falls back (see fallbacks). */
                needsLlm: boolean;
                /** @description Writes the summary of the compacted turns. */
                summarizes: boolean;
                /** @description Shrinks the middle turns that stay in the conversation. */
                keeps: boolean;
            }[];
            /** @description The pipeline used when a request gives no strategy (COMPACTION_DEFAULT_STRATEGY). */
            default: ("mask" | "rules" | "llm" | "truncate")[];
            /** @description Pipelines worth offering in a menu: the default first, then each strategy as it is usually run. */
            pipelines: ("mask" | "rules" | "llm" | "truncate")[][];
        };
        DisplayMessageInput: {
            /** @description The role: system, developer, user, assistant or tool. */
            role: string;
            /** @description Its text, reasoning (prefixed "(reasoning) ") and images ("[image]"), one a line. */
            text: string;
            /** @description Its tool calls. */
            calls: {
                id: string;
                name: string;
                /** @description The arguments as sent, serialized. */
                args: string;
            }[];
            /** @description Its tool results. */
            results: {
                /** @description The call it answers. */
                id: string;
                text: string;
                isError?: boolean;
            }[];
        };
        DisplayRequestInput: {
            /** @description The conversation, in OpenAI Chat Completions, Anthropic Messages, Vercel AI SDK ModelMessage or OpenAI Responses (input items) format. The format is detected; `format` overrides. */
            messages: unknown[];
            /**
             * @description Message format. Detected automatically when omitted; a plain user/assistant string array is read as openai (identical in every format).
             * @enum {string}
             */
            format?: "openai" | "anthropic" | "ai-sdk" | "responses";
            /** @description Anthropic-style top-level system prompt (string or text blocks). With other formats it counts as a leading system message. */
            system?: string | unknown[];
        };
        DisplayResponseInput: {
            /**
             * @description The detected (or given) format.
             * @enum {string}
             */
            format: "openai" | "anthropic" | "ai-sdk" | "responses";
            /** @description The top-level system prompt, when given. */
            system?: components["schemas"]["DisplayMessageInput"];
            messages: components["schemas"]["DisplayMessageInput"][];
        };
        /**
         * @example {
         *       "formats": [
         *         {
         *           "name": "openai",
         *           "label": "OpenAI"
         *         },
         *         {
         *           "name": "anthropic",
         *           "label": "Anthropic"
         *         }
         *       ],
         *       "default": "openai"
         *     }
         */
        FormatsResponseInput: {
            /** @description Every message format the API reads and writes, in the order the docs list them. */
            formats: {
                /**
                 * @description The value of `format` in requests and responses.
                 * @enum {string}
                 */
                name: "openai" | "anthropic" | "ai-sdk" | "responses";
                /** @description Its name for people. */
                label: string;
            }[];
            /**
             * @description The format assumed when nothing can be detected (a plain user/assistant string array).
             * @enum {string}
             */
            default: "openai" | "anthropic" | "ai-sdk" | "responses";
        };
        /**
         * @description A conversation to count.
         * @example {
         *       "model": "gpt-4o",
         *       "messages": [
         *         {
         *           "role": "system",
         *           "content": "You are a coding agent."
         *         },
         *         {
         *           "role": "user",
         *           "content": "Fix the failing test in src/db.ts"
         *         }
         *       ]
         *     }
         */
        EstimateRequestInput: {
            /** @description The conversation, in OpenAI Chat Completions, Anthropic Messages, Vercel AI SDK ModelMessage or OpenAI Responses (input items) format. The format is detected; `format` overrides. */
            messages: unknown[];
            /**
             * @description Message format. Detected automatically when omitted; a plain user/assistant string array is read as openai (identical in every format).
             * @enum {string}
             */
            format?: "openai" | "anthropic" | "ai-sdk" | "responses";
            /** @description Model the conversation is for (e.g. gpt-4o, claude-sonnet-4-5). Sets the limits and the tokenizer. Default: DEFAULT_MODEL. */
            model?: string;
            /** @description Anthropic-style top-level system prompt (string or text blocks). With other formats it counts as a leading system message. */
            system?: string | unknown[];
            /** @description Tool definitions sent with the request (OpenAI `tools` or Anthropic `tools`); their schemas count toward the prompt. */
            tools?: unknown[];
            /**
             * @description `tokenizer`: exact o200k_base/cl100k_base counts (OpenAI models). `heuristic`: fast character-class estimate. `provider`: Anthropic count_tokens, falling back to the heuristic when unavailable. Default: tokenizer for OpenAI models, heuristic with a safety margin for others.
             * @enum {string}
             */
            method?: "tokenizer" | "heuristic" | "provider";
            /** @description Override the model's context window (e.g. for an unknown model). */
            contextLimit?: number;
            /** @description Tokens reserved for the system prompt and tools. Default 2000 (COMPACTION_SYSTEM_RESERVE). */
            systemReserve?: number;
            /** @description Tokens reserved for the reply. Default 4000 (COMPACTION_OUTPUT_RESERVE). */
            outputReserve?: number;
            /** @description Tokens kept free for estimation error. Default 5000 (COMPACTION_SAFETY_BUFFER). */
            safetyBuffer?: number;
            /** @description Fraction of the available window at which to compact. Default 0.8. */
            thresholdPercent?: number;
        };
        /**
         * @example {
         *       "model": "gpt-4o",
         *       "modelKnown": true,
         *       "provider": "openai",
         *       "format": "openai",
         *       "method": "tokenizer",
         *       "encoding": "o200k_base",
         *       "safetyMargin": 1,
         *       "totalTokens": 27,
         *       "toolsTokens": 0,
         *       "perMessage": [
         *         {
         *           "index": 0,
         *           "role": "system",
         *           "tokens": 10
         *         },
         *         {
         *           "index": 1,
         *           "role": "user",
         *           "tokens": 14
         *         }
         *       ],
         *       "contextLimit": 128000,
         *       "maxOutputTokens": 16384,
         *       "threshold": 93600,
         *       "shouldCompact": false
         *     }
         */
        EstimateResponseInput: {
            /** @description The model the limits refer to (the request's, or DEFAULT_MODEL). */
            model: string;
            /** @description False when the model is not in the registry and configurable defaults were used. */
            modelKnown: boolean;
            /** @description openai, anthropic, google, deepseek or unknown. */
            provider: string;
            /**
             * @description The detected (or given) message format.
             * @enum {string}
             */
            format: "openai" | "anthropic" | "ai-sdk" | "responses";
            /**
             * @description The method that produced totalTokens.
             * @enum {string}
             */
            method: "tokenizer" | "heuristic" | "provider";
            /** @description Tokenizer encoding, when method is tokenizer. */
            encoding?: string;
            /** @description Multiplier applied to heuristic counts for models whose tokenizer is not o200k-like (1 = none). */
            safetyMargin: number;
            /** @description Prompt tokens: messages, per-message overhead, tools and reply priming. */
            totalTokens: number;
            /** @description Tokens of the tool definitions, included in totalTokens. */
            toolsTokens: number;
            /** @description Tokens of each message, overhead included. With method provider these are heuristic estimates. Left out with `?perMessage=false`. */
            perMessage?: {
                /** @description Index in `messages`; -1 is a separate system prompt. */
                index: number;
                role: string;
                tokens: number;
            }[];
            /** @description The model's context window. */
            contextLimit: number;
            /** @description The model's maximum output tokens. */
            maxOutputTokens: number;
            /** @description (contextLimit − systemReserve − outputReserve − safetyBuffer) × thresholdPercent. 0 when the server's default reserves fill the model's window (see thresholdNote). */
            threshold: number;
            /** @description Present when threshold is 0 because the model's window is smaller than the server's default reserves (gpt-4's 8,192 < 11,000): the numbers, and what to give (smaller reserves, or targetTokens to /compact). The count is exact all the same. */
            thresholdNote?: string;
            /** @description totalTokens ≥ threshold (always true when threshold is 0). */
            shouldCompact: boolean;
            /** @description Present when the requested method was unavailable and the heuristic was used instead. */
            fallback?: {
                from: string;
                reason: string;
            };
        };
        /**
         * @description An agent session log to convert.
         * @example {
         *       "format": "openai",
         *       "log": "{\"type\":\"user\",\"uuid\":\"u1\",\"parentUuid\":null,\"sessionId\":\"s-1\",\"timestamp\":\"2026-11-20T09:00:00.000Z\",\"message\":{\"role\":\"user\",\"content\":\"Fix the failing test in src/db.ts\"}}\n{\"type\":\"assistant\",\"uuid\":\"a1\",\"parentUuid\":\"u1\",\"sessionId\":\"s-1\",\"timestamp\":\"2026-11-20T09:00:05.000Z\",\"message\":{\"id\":\"msg_1\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",\"content\":[{\"type\":\"text\",\"text\":\"Running the tests.\"}],\"usage\":{\"input_tokens\":812,\"output_tokens\":9}}}\n"
         *     }
         */
        ImportRequestInput: {
            /** @description The log: the file's text as one string (JSON Lines or a JSON document, exactly as the agent wrote it), or a JSON document (SWE-agent trajectory, Gemini CLI session) as a value. Empty text, or text that is no log, is a 400 invalid_log. The whole body is limited to BODY_LIMIT_BYTES. */
            log: string | unknown[] | {
                [key: string]: unknown;
            };
            /**
             * @description Which agent wrote it: claude-code (Claude Code session JSONL), codex (Codex CLI rollout JSONL), gemini-cli (Gemini CLI session JSON), pi (pi session JSONL), swe-agent (SWE-agent and mini-swe-agent trajectories). Detected from the content when omitted.
             * @enum {string}
             */
            source?: "claude-code" | "codex" | "gemini-cli" | "pi" | "swe-agent";
            /**
             * @description Format of the returned messages: OpenAI Chat Completions (default), Anthropic Messages, Vercel AI SDK ModelMessage or OpenAI Responses items (a Codex rollout keeps its own items).
             * @enum {string}
             */
            format?: "openai" | "anthropic" | "ai-sdk" | "responses";
            /**
             * @description `all` (default): every message of the log. `current`: what the agent's model saw last: the leading system messages, then everything from the latest compaction's summary on.
             * @enum {string}
             */
            scope?: "all" | "current";
        };
        /**
         * @example {
         *       "source": "claude-code",
         *       "detected": true,
         *       "format": "openai",
         *       "scope": "all",
         *       "messages": [
         *         {
         *           "role": "user",
         *           "content": "Fix the failing test in src/db.ts"
         *         },
         *         {
         *           "role": "assistant",
         *           "content": "Running the tests."
         *         }
         *       ],
         *       "compactions": [],
         *       "issues": [],
         *       "issuesOmitted": 0,
         *       "repairs": [],
         *       "stats": {
         *         "lines": 2,
         *         "entries": 2,
         *         "skipped": 0,
         *         "messages": 2
         *       },
         *       "session": {
         *         "id": "s-1",
         *         "model": "claude-sonnet-4-5",
         *         "startedAt": "2026-11-20T09:00:00.000Z"
         *       }
         *     }
         */
        ImportResponseInput: {
            /**
             * @description The agent that wrote the log.
             * @enum {string}
             */
            source: "claude-code" | "codex" | "gemini-cli" | "pi" | "swe-agent";
            /** @description True when `source` was detected from the content, false when given. */
            detected: boolean;
            /**
             * @description Format of `messages`.
             * @enum {string}
             */
            format: "openai" | "anthropic" | "ai-sdk" | "responses";
            /** @enum {string} */
            scope: "all" | "current";
            /** @description The conversation in `format`, tool calls paired with their results. Ready for /estimate, /compact or a provider. */
            messages: unknown[];
            /** @description Anthropic top-level system prompt (format anthropic, when the log has system messages). */
            system?: unknown;
            /** @description Compactions found in the log: Claude Code's compact_boundary and continued-session summary, Codex compacted items, Gemini CLI <state_snapshot>, pi compaction entries. */
            compactions: {
                /** @description Index in `messages` where the compaction took effect: the agent's summary message is there when `summary` is not null; messages before it are what the agent compacted. null: not in the returned messages (scope current, earlier compactions). */
                position: number | null;
                /** @description Line of the log that records the compaction; null in a JSON document. */
                line: number | null;
                /** @description Where in a JSON document. */
                path?: string;
                /**
                 * @description Claude Code's trigger, when recorded.
                 * @enum {string}
                 */
                trigger?: "auto" | "manual";
                /** @description Tokens in the context just before the compaction, when the log records them: Claude Code compactMetadata.preTokens, Codex token_count, pi tokensBefore, Gemini CLI record tokens; else null. */
                preTokens: number | null;
                /** @description The summary the agent wrote, without its harness wrapper; null when the log does not hold it. */
                summary: string | null;
                timestamp?: string;
            }[];
            /** @description Broken and unknown lines, skipped (never fatal), at most 200. */
            issues: {
                /** @description 1-based line of a line-based log; null in a JSON document. */
                line: number | null;
                /** @description Where in a JSON document, e.g. `messages[377]`. */
                path?: string;
                /**
                 * @description `broken`: not JSON, or not what its type promises. `unknown`: valid JSON of a type this importer does not know.
                 * @enum {string}
                 */
                kind: "broken" | "unknown";
                message: string;
            }[];
            /** @description Issues beyond the 200 listed. */
            issuesOmitted: number;
            /** @description Tool calls without a result answered with "[no result recorded]", results without a call dropped (as POST /compact onBrokenInput repair). */
            repairs: {
                line: number | null;
                path?: string;
                action: string;
            }[];
            stats: {
                /** @description Lines of a line-based log. */
                lines?: number;
                /** @description Entries read (JSON lines, or elements of a JSON document). */
                entries: number;
                /** @description Entries of known types that hold no conversation: metadata, UI events, token counts, subagent sidechains. */
                skipped: number;
                /** @description Messages returned. */
                messages: number;
            };
            /** @description What the log says about the session. */
            session: {
                /** @description The agent's own session id. */
                id?: string;
                cwd?: string;
                /** @description The last model the log names. */
                model?: string;
                /** @description The writer, when a source has several (swe-agent or mini-swe-agent). */
                agent?: string;
                agentVersion?: string;
                startedAt?: string;
            };
        };
        /**
         * @description An OpenAI Chat Completions request, passed on to UPSTREAM_OPENAI_URL/chat/completions (every other field unchanged; `stream` streams).
         * @example {
         *       "model": "gpt-4o",
         *       "messages": [
         *         {
         *           "role": "user",
         *           "content": "Hello"
         *         }
         *       ]
         *     }
         */
        ProxyChatCompletionsRequestInput: {
            /** @description The provider's model id: its threshold decides whether the request is compacted. */
            model: string;
            /** @description OpenAI Chat Completions messages: compacted past the threshold. */
            messages: unknown[];
        } & {
            [key: string]: unknown;
        };
        /**
         * @description An OpenAI Responses request, passed on to UPSTREAM_OPENAI_URL/responses. `instructions` are kept; with `previous_response_id` the provider holds the history and nothing is compacted.
         * @example {
         *       "model": "gpt-4o",
         *       "input": [
         *         {
         *           "role": "user",
         *           "content": "Hello"
         *         }
         *       ]
         *     }
         */
        ProxyResponsesRequestInput: {
            /** @description The provider's model id: its threshold decides whether the request is compacted. */
            model: string;
            /** @description Responses input items: compacted past the threshold (a string input never is). */
            input: string | unknown[];
        } & {
            [key: string]: unknown;
        };
        /**
         * @description An Anthropic Messages request, passed on to UPSTREAM_ANTHROPIC_URL/v1/messages. `system` is kept (a summary may be folded into it).
         * @example {
         *       "model": "claude-sonnet-4-5",
         *       "max_tokens": 1024,
         *       "messages": [
         *         {
         *           "role": "user",
         *           "content": "Hello"
         *         }
         *       ]
         *     }
         */
        ProxyMessagesRequestInput: {
            /** @description The provider's model id: its threshold decides whether the request is compacted. */
            model: string;
            /** @description Anthropic messages: compacted past the threshold. */
            messages: unknown[];
        } & {
            [key: string]: unknown;
        };
        /**
         * @description Anthropic's count_tokens request, answered by compactd's own counter (the heuristic for Anthropic models, with its margin).
         * @example {
         *       "model": "claude-sonnet-4-5",
         *       "messages": [
         *         {
         *           "role": "user",
         *           "content": "Hello"
         *         }
         *       ]
         *     }
         */
        ProxyCountTokensRequestInput: {
            /** @description The provider's model id: its threshold decides whether the request is compacted. */
            model: string;
            messages: unknown[];
        } & {
            [key: string]: unknown;
        };
        /**
         * @example {
         *       "input_tokens": 9
         *     }
         */
        ProxyCountTokensResponseInput: {
            input_tokens: number;
        };
        /**
         * @example {
         *       "sessionId": "agent-run-42",
         *       "version": 3,
         *       "content": "## Previously in This Session\n1. Asked \"Fix the failing test in src/db.ts\"; edited src/db.ts; `npm test` failed (exit 1): Error: Called end on pool more than once, later passed (2026-11-22 13:20Z, ~2.1k tokens) <!-- at=2026-11-22T13:20:00.000Z i=m k=fix f=src/db.ts -->\n\n## Yesterday\n\n## This Week\n",
         *       "text": "## Previously in This Session\n1. Asked \"Fix the failing test in src/db.ts\"; edited src/db.ts; `npm test` failed (exit 1): Error: Called end on pool more than once, later passed (2026-11-22 13:20Z, ~2.1k tokens)\n\n## Yesterday\n\n## This Week\n",
         *       "tokens": 96,
         *       "budget": 10000,
         *       "updatedAt": "2026-11-22T13:23:20.601Z",
         *       "source": "background",
         *       "stale": false,
         *       "evictedAwaitingSummary": 0,
         *       "update": null,
         *       "degraded": false
         *     }
         */
        SessionSummaryInput: {
            /** @description The session. */
            sessionId: string;
            /** @description Summary version (0 while none exists). Versions are kept; the highest is current. */
            version: number;
            /** @description The summary document as stored, with each item's `<!-- … -->` machine comment (times, importance, files). Send this back to PUT /summary to edit it. */
            content: string;
            /** @description The same document without the machine comments: what to send to a model. */
            text: string;
            /** @description Tokens of `content`; never more than `budget`. */
            tokens: number;
            /** @description The session's summary budget, in tokens. */
            budget: number;
            /** @description When this version was written (ISO 8601). */
            updatedAt: string | null;
            /** @description Who wrote this version. */
            source: ("background" | "manual") | null;
            /** @description True when evicted messages are not folded in yet (an update is due), or when the database was unreachable. */
            stale: boolean;
            /** @description Evicted messages not yet in the summary. */
            evictedAwaitingSummary: number;
            /** @description The queued background update, if any. */
            update: {
                /**
                 * @description pending: queued; running: a worker holds it; failed: gave up after MAX_RETRIES.
                 * @enum {string}
                 */
                status: "pending" | "running" | "failed";
            } | null;
            /** @description True when the database could not be read: this is the last summary this process saw (or, with status 503, the placeholder "[Summary temporarily unavailable]"). */
            degraded: boolean;
        };
        /**
         * @example {
         *       "sessionId": "agent-run-42",
         *       "version": 3,
         *       "content": "## Previously in This Session\n1. Asked \"Fix the failing test in src/db.ts\"; edited src/db.ts; `npm test` failed (exit 1): Error: Called end on pool more than once, later passed (2026-11-22 13:20Z, ~2.1k tokens) <!-- at=2026-11-22T13:20:00.000Z i=m k=fix f=src/db.ts -->\n\n## Yesterday\n\n## This Week\n",
         *       "text": "## Previously in This Session\n1. Asked \"Fix the failing test in src/db.ts\"; edited src/db.ts; `npm test` failed (exit 1): Error: Called end on pool more than once, later passed (2026-11-22 13:20Z, ~2.1k tokens)\n\n## Yesterday\n\n## This Week\n",
         *       "tokens": 96,
         *       "budget": 10000,
         *       "updatedAt": "2026-11-22T13:23:20.601Z",
         *       "source": "manual",
         *       "stale": false,
         *       "evictedAwaitingSummary": 0,
         *       "update": null,
         *       "degraded": false,
         *       "continuationCarriedOver": []
         *     }
         */
        PutSessionSummaryResponseInput: {
            /** @description The session. */
            sessionId: string;
            /** @description Summary version (0 while none exists). Versions are kept; the highest is current. */
            version: number;
            /** @description The summary document as stored, with each item's `<!-- … -->` machine comment (times, importance, files). Send this back to PUT /summary to edit it. */
            content: string;
            /** @description The same document without the machine comments: what to send to a model. */
            text: string;
            /** @description Tokens of `content`; never more than `budget`. */
            tokens: number;
            /** @description The session's summary budget, in tokens. */
            budget: number;
            /** @description When this version was written (ISO 8601). */
            updatedAt: string | null;
            /** @description Who wrote this version. */
            source: ("background" | "manual") | null;
            /** @description True when evicted messages are not folded in yet (an update is due), or when the database was unreachable. */
            stale: boolean;
            /** @description Evicted messages not yet in the summary. */
            evictedAwaitingSummary: number;
            /** @description The queued background update, if any. */
            update: {
                /**
                 * @description pending: queued; running: a worker holds it; failed: gave up after MAX_RETRIES.
                 * @enum {string}
                 */
                status: "pending" | "running" | "failed";
            } | null;
            /** @description True when the database could not be read: this is the last summary this process saw (or, with status 503, the placeholder "[Summary temporarily unavailable]"). */
            degraded: boolean;
            /** @description Continuation fields your text did not state (no "Current task:", "Completed:", "Pending:", "Key decisions:" or "Relevant files:" line), so they were carried over from the version you replaced and added to its `## Continuation` block. Empty when you stated them all. To clear a field, state it as none, e.g. "Current task: none". */
            continuationCarriedOver: ("currentTask" | "completedSteps" | "pendingSteps" | "keyDecisions" | "relevantFiles")[];
        };
        /**
         * @description A summary written by hand. It becomes a new version, and the next background update builds on it.
         * @example {
         *       "baseVersion": 3,
         *       "content": "## Previously in This Session\n1. Decided to keep one pg.Pool per process (2026-11-22 13:20Z, ~2k tokens)\n\n## Yesterday\n\n## This Week\n"
         *     }
         */
        PutSummaryRequestInput: {
            /** @description The new summary document (markdown: "## Previously in This Session", "## Yesterday", "## This Week", "## Continuation"). Items may keep their `<!-- … -->` comments from GET; lines without one take the time of the newest dated item (the update's time when none has one). Continuation fields it does not state are carried over from the version it replaces (see continuationCarriedOver). Must fit the session's summaryBudget. */
            content: string;
            /** @description The version you read (compare-and-set): when another version was written since, the request fails with 409 and writes nothing. Omitted: the current version at the time of the write. */
            baseVersion?: number;
        };
        /**
         * @example {
         *       "sessionId": "agent-run-42",
         *       "queued": "new",
         *       "priority": "high",
         *       "evictedAwaitingSummary": 6
         *     }
         */
        SummaryRefreshInput: {
            /** @description The session. */
            sessionId: string;
            /**
             * @description new: an entry was queued; merged: the pending entry was raised to high priority.
             * @enum {string}
             */
            queued: "new" | "merged";
            /**
             * @description Refreshes are queued at high priority.
             * @constant
             */
            priority: "high";
            /** @description Evicted messages the update will fold in. */
            evictedAwaitingSummary: number;
        };
        /**
         * @description A session's settings; omitted fields keep their value (or the default for a new session).
         * @example {
         *       "format": "openai",
         *       "model": "gpt-4o",
         *       "windowMessages": 20,
         *       "windowTokens": 16000,
         *       "summaryBudget": 10000,
         *       "batchSize": 4,
         *       "mode": "rules"
         *     }
         */
        SessionSettingsRequestInput: {
            /** @description Seqs (GET /sessions/:id/messages) of messages GET /context always sends verbatim, with their tool pairs, even once folded into the summary. Checked on every /context: what its budget cannot hold is a 422 `contract_unkept`. null removes the pins. */
            pin?: number[] | null;
            /** @description Strings GET /context and POST /compact (with this sessionId) must keep; a string not in the conversation yet is listed in `contract.absent`, not an error. null removes them. */
            preserve?: string[] | null;
            /** @description What the session's compactions give room to (see POST /compact `focus`). null removes it. */
            focus?: string | null;
            thinking?: {
                /** @description Assistant turns (counted from the end) whose reasoning stays; `all` keeps every one; 0 drops all but the turn in progress. */
                keep: number | "all";
            } | null;
            trigger?: {
                /**
                 * @description `auto` (default): GET /context and the proxy compact past the threshold. `manual`: only POST /compact (or the proxy's `x-compactd-compact: now`) compacts. `off`: nothing compacts this session, POST /compact with its id included (a 409).
                 * @enum {string}
                 */
                mode: "off" | "manual" | "auto";
                /** @description `auto` compacts past this many tokens (a number ≥ 1) or this share of the model's window (a number < 1). Default: the budget (GET /context) or the model's threshold (the proxy). */
                threshold?: number;
                /** @description Never compact automatically while the last assistant message has tool calls without results. */
                notMidTurn?: boolean;
            } | null;
            /**
             * @description Format of the session's messages (openai, anthropic, ai-sdk). Set by the first append when omitted; it cannot change once messages are stored.
             * @enum {string}
             */
            format?: "openai" | "anthropic" | "ai-sdk" | "responses";
            /** @description Model the session talks to: sets token counting and the default /context budget. Default: DEFAULT_MODEL. */
            model?: string;
            /** @description The recent window keeps at most this many messages (system messages excepted). Default 20. */
            windowMessages?: number;
            /** @description ...and at most this many tokens. Default 16000. */
            windowTokens?: number;
            /** @description Hard limit of the rolling summary, in tokens: enforced even when a summarizer overshoots. Default 10000. */
            summaryBudget?: number;
            /** @description Evicted exchanges that trigger a background summary update (seed 000's BATCH_SIZE). Default 4. */
            batchSize?: number;
            /**
             * @description `rules`: offline summary (default). `llm`: the configured summarizer writes it with seed 000's background-agent prompt, falling back to rules on any failure.
             * @enum {string}
             */
            mode?: "rules" | "llm";
            /** @description System prompt sent first by GET /context (a string, or Anthropic text blocks). null removes it. */
            system?: (string | ({
                /** @constant */
                type: "text";
                text: string;
            } & {
                [key: string]: unknown;
            })[]) | null;
            summarizer?: {
                /**
                 * @description Summarizer provider; it must be configured on the server (its API key set).
                 * @enum {string}
                 */
                provider: "openai" | "anthropic";
                /** @description One of the models the server allows for the provider. Default: the first one. */
                model?: string;
            } | null;
        };
        /**
         * @example {
         *       "id": "agent-run-42",
         *       "settings": {
         *         "format": "openai",
         *         "windowMessages": 20,
         *         "windowTokens": 16000,
         *         "summaryBudget": 10000,
         *         "batchSize": 4,
         *         "mode": "rules"
         *       },
         *       "messageCount": 58,
         *       "windowMessages": 20,
         *       "windowTokens": 9120,
         *       "systemMessages": 1,
         *       "evictedAwaitingSummary": 6,
         *       "summarizedMessages": 31,
         *       "summary": {
         *         "version": 3,
         *         "tokens": 812,
         *         "updatedAt": "2026-11-22T13:23:20.601Z",
         *         "source": "background"
         *       },
         *       "update": {
         *         "status": "pending"
         *       },
         *       "createdAt": "2026-11-22T12:01:09.114Z",
         *       "updatedAt": "2026-11-22T13:24:02.930Z"
         *     }
         */
        SessionInput: {
            /** @description The session id. */
            id: string;
            /** @description The session's settings. */
            settings: {
                /**
                 * @description Format of the stored messages.
                 * @enum {string}
                 */
                format?: "openai" | "anthropic" | "ai-sdk" | "responses";
                /** @description Model of the session. */
                model?: string;
                /** @description System prompt, when set. */
                system?: unknown;
                /** @description Window size in messages. */
                windowMessages: number;
                /** @description Window size in tokens. */
                windowTokens: number;
                /** @description Summary budget in tokens. */
                summaryBudget: number;
                /** @description Evicted exchanges per background update. */
                batchSize: number;
                /**
                 * @description Summary mode.
                 * @enum {string}
                 */
                mode: "rules" | "llm";
                /** @description Summarizer of llm mode. */
                summarizer?: {
                    provider: string;
                    model?: string;
                };
                /** @description Pinned message seqs. */
                pin?: number[];
                /** @description Strings every compaction keeps. */
                preserve?: string[];
                /** @description What the compactions give room to. */
                focus?: string;
                /** @description The thinking policy. */
                thinking?: {
                    keep: number | "all";
                };
                /** @description When automatic compaction happens. */
                trigger?: {
                    /** @enum {string} */
                    mode: "off" | "manual" | "auto";
                    threshold?: number;
                    notMidTurn?: boolean;
                };
            };
            /** @description Messages appended so far. */
            messageCount: number;
            /** @description Messages in the recent window (system messages excepted). */
            windowMessages: number;
            /** @description Tokens of the recent window. */
            windowTokens: number;
            /** @description System/developer messages, always kept. */
            systemMessages: number;
            /** @description Messages that left the window and are not yet in the summary. */
            evictedAwaitingSummary: number;
            /** @description Messages folded into the summary. */
            summarizedMessages: number;
            /** @description The current summary version, if any. */
            summary: {
                version: number;
                tokens: number;
                updatedAt: string;
                source: string;
            } | null;
            /** @description The queued background update, if any. */
            update: {
                /**
                 * @description pending: queued; running: a worker holds it; failed: gave up after MAX_RETRIES.
                 * @enum {string}
                 */
                status: "pending" | "running" | "failed";
            } | null;
            /** @description ISO 8601. */
            createdAt: string;
            /** @description ISO 8601: last settings change or append. */
            updatedAt: string;
        };
        /**
         * @description Messages to append to the session.
         * @example {
         *       "messages": [
         *         {
         *           "role": "user",
         *           "content": "Fix the failing test in src/db.ts",
         *           "timestamp": "2026-11-22T13:20:00Z"
         *         },
         *         {
         *           "role": "assistant",
         *           "content": null,
         *           "tool_calls": [
         *             {
         *               "id": "call_1",
         *               "type": "function",
         *               "function": {
         *                 "name": "bash",
         *                 "arguments": "{\"cmd\":\"npm test\"}"
         *               }
         *             }
         *           ]
         *         },
         *         {
         *           "role": "tool",
         *           "tool_call_id": "call_1",
         *           "content": "FAIL test/db.test.ts\nError: Called end on pool more than once"
         *         },
         *         {
         *           "role": "assistant",
         *           "content": "The pool is closed twice; removing the second pool.end() in src/db.ts."
         *         }
         *       ]
         *     }
         */
        AppendMessagesRequestInput: {
            /** @description The exchange(s) to append, oldest first, in the session's format. A `timestamp` (or `createdAt`) on a message dates it for aging; otherwise the append time does. */
            messages: unknown[];
            /**
             * @description Message format. Detected automatically when omitted; a plain user/assistant string array is read as openai (identical in every format).
             * @enum {string}
             */
            format?: "openai" | "anthropic" | "ai-sdk" | "responses";
            /** @description Anthropic-style top-level system prompt (a string or text blocks); stored as the session's system prompt. */
            system?: string | ({
                /** @constant */
                type: "text";
                text: string;
            } & {
                [key: string]: unknown;
            })[];
        };
        /**
         * @example {
         *       "sessionId": "agent-run-42",
         *       "appended": 4,
         *       "firstSeq": 55,
         *       "lastSeq": 58,
         *       "messageCount": 58,
         *       "windowMessages": 20,
         *       "windowTokens": 9120,
         *       "evicted": 4,
         *       "evictedAwaitingSummary": 10,
         *       "evictedExchangesAwaitingSummary": 4,
         *       "updateQueued": true
         *     }
         */
        AppendMessagesResponseInput: {
            /** @description The session. */
            sessionId: string;
            /** @description Messages appended by this request. */
            appended: number;
            /** @description Sequence number of the first appended message. */
            firstSeq: number | null;
            /** @description Sequence number of the last appended message. */
            lastSeq: number | null;
            /** @description Messages in the session. */
            messageCount: number;
            /** @description Messages in the recent window now. */
            windowMessages: number;
            /** @description Tokens of the recent window now. */
            windowTokens: number;
            /** @description Messages this request pushed out of the window. */
            evicted: number;
            /** @description Evicted messages not yet folded into the summary. */
            evictedAwaitingSummary: number;
            /** @description The same, in exchanges: an update is queued once it reaches batchSize. */
            evictedExchangesAwaitingSummary: number;
            /** @description True when this request queued a background summary update. */
            updateQueued: boolean;
            /** @description When messages were evicted: what of them the archive stored (searchable with GET /sessions/{id}/search). */
            archive?: components["schemas"]["ArchiveReportInput"];
        };
        /**
         * @example {
         *       "sessionId": "agent-run-42",
         *       "format": "openai",
         *       "model": "gpt-4o",
         *       "budget": 8000,
         *       "tokens": 3120,
         *       "compacted": false,
         *       "strategy": "none",
         *       "summaryVersion": 3,
         *       "stale": false,
         *       "messages": [
         *         {
         *           "role": "system",
         *           "content": "You are a coding agent."
         *         },
         *         {
         *           "role": "system",
         *           "content": "Summary of the earlier part of this session (rolling summary, version 3):\n\n## Previously in This Session\n1. …"
         *         },
         *         {
         *           "role": "user",
         *           "content": "Now add a --limit option."
         *         }
         *       ]
         *     }
         */
        SessionContextInput: {
            /** @description The session. */
            sessionId: string;
            /**
             * @description Format of `messages` (and `system`).
             * @enum {string}
             */
            format: "openai" | "anthropic" | "ai-sdk" | "responses";
            /** @description Model the tokens were counted for. */
            model: string;
            /** @description The budget the context fits. */
            budget: number;
            /** @description Tokens of the returned context. */
            tokens: number;
            /** @description True when the compaction engine had to trim it to the budget. */
            compacted: boolean;
            /** @description What trimmed it: none, or an offline strategy (mask, rules, truncate). */
            strategy: string;
            /** @description The summary version included (0: none yet). */
            summaryVersion: number;
            /** @description True when evicted messages were not yet in the summary: they are included verbatim (or compacted) instead, so nothing is lost. */
            stale: boolean;
            /** @description Why the context was not compacted though it is over the budget: the session's trigger (mode, threshold, notMidTurn). */
            reason?: string;
            /** @description With the session's `pin` or `preserve`: what the contract checked (a 200 means all of it held). */
            contract?: {
                /** @description Seqs of the pinned messages, each checked present (byte for byte in the session's format). */
                pinned: number[];
                /** @description Preserved strings, each checked present. */
                preserved: string[];
                /** @description Preserved strings the session does not hold (yet): nothing to keep. */
                absent: string[];
            };
            /** @description Ready to send: system messages, the summary, messages awaiting summary, then the recent window. Valid for the provider (tool calls keep their results). */
            messages: unknown[];
            /** @description Anthropic: the top-level system prompt (system messages and the summary). */
            system?: unknown;
        };
        /**
         * @example {
         *       "sessionId": "agent-run-42",
         *       "version": 3,
         *       "updatedAt": "2026-11-22T13:23:20.601Z",
         *       "stale": false,
         *       "degraded": false,
         *       "currentTask": "Fix the failing test in src/db.ts",
         *       "completedSteps": [
         *         "Fix the failing test in src/db.ts"
         *       ],
         *       "pendingSteps": [],
         *       "keyDecisions": [],
         *       "relevantFiles": [
         *         "src/db.ts"
         *       ],
         *       "prompt": "[Previous Session Context]\nCurrent task: Fix the failing test in src/db.ts\nCompleted: Fix the failing test in src/db.ts\nPending: \nKey decisions: \nRelevant files: src/db.ts"
         *     }
         */
        SessionContinuationInput: {
            /** @description The session. */
            sessionId: string;
            /** @description Summary version it was read from. */
            version: number;
            /** @description When that version was written. */
            updatedAt: string | null;
            /** @description True when evicted messages are not folded in yet. */
            stale: boolean;
            /** @description True when the database could not be read and this comes from the last summary this process saw. */
            degraded: boolean;
            /** @description The task being worked on (the latest meaningful request). */
            currentTask: string;
            /** @description Steps already done. */
            completedSteps: string[];
            /** @description Steps remaining. */
            pendingSteps: string[];
            /** @description Decisions made. */
            keyDecisions: string[];
            /** @description Files being worked on, most recent first. */
            relevantFiles: string[];
            /** @description The same as seed 003's `[Previous Session Context]` block, ready to inject. */
            prompt: string;
        };
        /**
         * @example {
         *       "items": [
         *         {
         *           "sessionId": "agent-run-42",
         *           "checkpointNum": 3,
         *           "round": 3,
         *           "strategy": "rules",
         *           "fromMessageIndex": 2,
         *           "toMessageIndex": 13,
         *           "messagesCompressed": 12,
         *           "summary": "## Session Summary (Compaction Round 3)\n\n### Original Task\nFix the failing test in src/db.ts\n…",
         *           "keyFacts": {
         *             "currentTask": "Fix the failing test in src/db.ts",
         *             "completedSteps": [
         *               "edited test/db.test.ts: removed `afterEach(() => close())`",
         *               "ran npm test -- test/db.test.ts (ok)"
         *             ],
         *             "pendingSteps": [],
         *             "keyDecisions": [],
         *             "relevantFiles": [
         *               "test/db.test.ts",
         *               "src/db.ts",
         *               "src/pool.ts",
         *               "src/config.ts"
         *             ],
         *             "errors": [
         *               "npm test -- test/db.test.ts: Error: Called end on pool more than once (resolved)"
         *             ],
         *             "userRequests": []
         *           },
         *           "originalTokens": 7124,
         *           "compressedTokens": 422,
         *           "compressionRatio": 16.88,
         *           "summaryCostUsd": 0,
         *           "targetTokens": 1500,
         *           "model": "gpt-4o",
         *           "durationMs": 63,
         *           "summaryTokens": 308,
         *           "foldedFrom": null,
         *           "createdAt": "2026-11-22T13:23:20.601Z"
         *         }
         *       ],
         *       "nextCursor": "Y3A6Mw"
         *     }
         */
        CheckpointPageInput: {
            /** @description Checkpoints, newest (highest number) first. */
            items: components["schemas"]["CheckpointInput"][];
            /** @description Pass as `cursor` for the next (older) page; null on the last page. */
            nextCursor: string | null;
        };
        /**
         * @example {
         *       "sessionId": "agent-run-42",
         *       "checkpoints": 2,
         *       "tokensSaved": 15817,
         *       "totalSummaryCostUsd": 0.00153225,
         *       "averageCompressionRatio": 3.85,
         *       "totalOriginalTokens": 21372,
         *       "totalCompressedTokens": 5555,
         *       "breaker": {
         *         "state": "closed",
         *         "recent": []
         *       }
         *     }
         */
        SessionStatsInput: {
            /** @description The session. */
            sessionId: string;
            /** @description Checkpoints stored (after folding). */
            checkpoints: number;
            /** @description Sum of originalTokens − compressedTokens over the checkpoints. */
            tokensSaved: number;
            /** @description Sum of summaryCostUsd. */
            totalSummaryCostUsd: number;
            /** @description Token-weighted: sum(originalTokens) / sum(compressedTokens) (unchanged by folding). */
            averageCompressionRatio: number;
            /** @description Sum of originalTokens. */
            totalOriginalTokens: number;
            /** @description Sum of compressedTokens. */
            totalCompressedTokens: number;
            /** @description The session's compaction circuit breaker (BREAKER_* settings; docs/api.md "Circuit breaker"). */
            breaker: components["schemas"]["BreakerStatusInput"];
        };
        BreakerResetInput: {
            sessionId: string;
            /** @description The session's compaction circuit breaker (BREAKER_* settings; docs/api.md "Circuit breaker"). */
            breaker: components["schemas"]["BreakerStatusInput"];
        };
        /**
         * @example {
         *       "items": [
         *         {
         *           "id": "agent-run-42",
         *           "kind": "both",
         *           "lastActivity": "2026-11-22T13:24:02.930Z",
         *           "messageCount": 58,
         *           "windowMessages": 20,
         *           "windowTokens": 9120,
         *           "windowLimit": {
         *             "messages": 20,
         *             "tokens": 16000
         *           },
         *           "summaryVersion": 3,
         *           "summaryTokens": 812,
         *           "checkpoints": 2,
         *           "tokensSaved": 15817,
         *           "update": null,
         *           "updateFailures": 0
         *         }
         *       ],
         *       "nextCursor": null,
         *       "total": 1
         *     }
         */
        SessionListInput: {
            items: {
                /** @description The session id (or the sessionId given to POST /compact). */
                id: string;
                /**
                 * @description `session`: a session with a rolling summary; `series`: only compactions stored with POST /compact and a sessionId; `both`.
                 * @enum {string}
                 */
                kind: "session" | "series" | "both";
                /** @description ISO 8601: the latest append, settings change, summary version or checkpoint. */
                lastActivity: string;
                /** @description Messages appended (0 for a series). */
                messageCount: number;
                /** @description Messages in the recent window now (system messages excepted). */
                windowMessages: number;
                /** @description Tokens of the recent window now. */
                windowTokens: number;
                /** @description The session's window size (null for a series). */
                windowLimit: {
                    messages: number;
                    tokens: number;
                } | null;
                /** @description Current rolling-summary version (0: none). */
                summaryVersion: number;
                /** @description Tokens of the current summary. */
                summaryTokens: number;
                /** @description Checkpoints stored (after folding). */
                checkpoints: number;
                /** @description Sum of originalTokens − compressedTokens over the checkpoints. */
                tokensSaved: number;
                /** @description The queued background summary update, if any. */
                update: {
                    /**
                     * @description pending: queued; running: a worker holds it; failed: gave up after MAX_RETRIES.
                     * @enum {string}
                     */
                    status: "pending" | "running" | "failed";
                    /** @description Attempts so far. */
                    attempts: number;
                    /** @description The last attempt's error, when it failed. */
                    lastError: string | null;
                } | null;
                /** @description Failed attempts of the queued update (0 when none failed). */
                updateFailures: number;
            }[];
            /** @description Pass as `cursor` (with the same q, sort and order) for the next page; null on the last page. */
            nextCursor: string | null;
            /** @description Rows matching `q`, on every page. */
            total: number;
        };
        /**
         * @example {
         *       "items": [
         *         {
         *           "version": 3,
         *           "tokens": 812,
         *           "updatedAt": "2026-11-22T13:23:20.601Z",
         *           "source": "background",
         *           "writtenBy": "background",
         *           "mode": "rules",
         *           "foldedMessages": 6
         *         }
         *       ],
         *       "nextCursor": null
         *     }
         */
        SummaryVersionPageInput: {
            items: {
                /** @description The version (1, 2, ...). */
                version: number;
                /** @description Tokens of the version. */
                tokens: number;
                /** @description ISO 8601: when it was written. */
                updatedAt: string;
                /**
                 * @description As GET /summary reports it.
                 * @enum {string}
                 */
                source: "background" | "manual";
                /**
                 * @description `background`: an update that folded evicted messages in; `aging`: the daily re-aging (nothing new folded); `manual`: PUT /summary.
                 * @enum {string}
                 */
                writtenBy: "background" | "aging" | "manual";
                /** @description Mode of the background update (rules, llm, llm-fallback); null for a manual version or when the update's record was purged (RUN_HISTORY_MS). */
                mode: string | null;
                /** @description Messages the update folded in; null as for mode. */
                foldedMessages: number | null;
            }[];
            /** @description Pass as `cursor` for the next (older) page; null on the last page. */
            nextCursor: string | null;
        };
        SummaryVersionInput: {
            /** @description The session. */
            sessionId: string;
            /** @description The version (1, 2, ...). */
            version: number;
            /** @description Tokens of the version. */
            tokens: number;
            /** @description ISO 8601: when it was written. */
            updatedAt: string;
            /**
             * @description As GET /summary reports it.
             * @enum {string}
             */
            source: "background" | "manual";
            /**
             * @description `background`: an update that folded evicted messages in; `aging`: the daily re-aging (nothing new folded); `manual`: PUT /summary.
             * @enum {string}
             */
            writtenBy: "background" | "aging" | "manual";
            /** @description Mode of the background update (rules, llm, llm-fallback); null for a manual version or when the update's record was purged (RUN_HISTORY_MS). */
            mode: string | null;
            /** @description Messages the update folded in; null as for mode. */
            foldedMessages: number | null;
            /** @description The document as stored, with the items' `<!-- … -->` comments. */
            content: string;
            /** @description The same without the comments. */
            text: string;
        };
        SessionMessagePageInput: {
            /** @description The session. */
            sessionId: string;
            /** @description The session's message format. */
            format: ("openai" | "anthropic" | "ai-sdk" | "responses") | null;
            items: {
                /** @description Position in the session (1, 2, ...). */
                seq: number;
                /** @description The message's role. */
                role: string;
                /** @description Its tokens, counted for the session's model when appended. */
                tokens: number;
                /**
                 * @description Where it is now.
                 * @enum {string}
                 */
                status: "window" | "evicted" | "summarized";
                /** @description ISO 8601: its own timestamp, else when it was appended. */
                messageAt: string;
                /** @description The message as appended. */
                message: unknown;
            }[];
            /** @description Pass as `cursor` for the next (newer) page; null on the last page. */
            nextCursor: string | null;
        };
        /**
         * @description Error body returned with every 4xx/5xx status.
         * @example {
         *       "error": "invalid_messages",
         *       "message": "messages[3].tool_call_id: required on role \"tool\"",
         *       "issues": [
         *         {
         *           "path": "messages[3].tool_call_id",
         *           "message": "required on role \"tool\""
         *         }
         *       ],
         *       "requestId": "req-1"
         *     }
         */
        Error: {
            /** @description Stable error code, e.g. `validation_error`, `invalid_messages`, `unauthorized`. */
            error: string;
            /** @description Human-readable explanation. */
            message: string;
            /** @description For validation errors: each problem with the path of the offending field. */
            issues?: {
                path: string;
                message: string;
            }[];
            /** @description Echo of the `x-request-id` of this request, for support. */
            requestId?: string;
        } & {
            [key: string]: unknown;
        };
        /** @description What this compaction archived: present when a sessionId was given and the conversation was compacted (not on a dry run). */
        ArchiveReport: {
            /**
             * @description `archived`: what this compaction dropped is stored and searchable. `over_quota`: the tenant's archive is full, nothing was archived and no references were printed. `disabled`: ARCHIVE_ENABLED is off.
             * @enum {string}
             */
            status: "archived" | "over_quota" | "disabled";
            /** @description Messages stored by this compaction. */
            archived: number;
            /** @description Messages already in the session's archive (a resent history is archived once). */
            deduplicated: number;
            /** @description Secrets replaced by `[REDACTED:rule]` in the messages stored. */
            redactions: number;
            /** @description Bytes the stored messages take. */
            bytes: number;
            /** @description The tenant's archive size after this compaction. */
            usedBytes: number;
            /** @description ARCHIVE_QUOTA_BYTES. */
            quotaBytes: number;
            /** @description Why nothing was archived, when status is not `archived`. */
            reason?: string;
        };
        ArchiveHit: {
            /** @description The archived message: read it with GET /sessions/{id}/archive/{ref}. */
            ref: string;
            role: string;
            /** @description The tool whose output (or call) this is. */
            toolName: string | null;
            /** @description The passage around the best match, 300–800 characters (the whole text when shorter). */
            snippet: string;
            /** @description Relevance: higher is better; comparable within one search. */
            score: number;
            /** @description The checkpoint that archived it (null: a session's evicted message). */
            checkpointNum: number | null;
            /** @description Its index in the messages of that compaction (a session's seq for an evicted one). */
            position: number;
            /** @enum {string} */
            source: "compact" | "session" | "proxy";
        };
        /**
         * @example {
         *       "hits": [
         *         {
         *           "ref": "7hq2k9xa",
         *           "role": "tool",
         *           "toolName": "bash",
         *           "snippet": "…def _add_batch(self, batch): try: self._collection.upsert(**batch) except RateLimitError as e: time.sleep(2 ** attempt) …",
         *           "score": 0.42,
         *           "checkpointNum": 3,
         *           "position": 41,
         *           "source": "compact"
         *         }
         *       ],
         *       "terms": [
         *         "chroma",
         *         "ratelimiterror",
         *         "batch"
         *       ]
         *     }
         */
        ArchiveSearch: {
            hits: components["schemas"]["ArchiveHit"][];
            /** @description The words searched for, rarest first, after stopwords and words too common in this session to rank by. */
            terms: string[];
            /** @description Archived messages not searchable yet: the search indexes up to 2,000 before it reads, and says how many more wait (search again). */
            pending?: number;
        };
        /**
         * @example {
         *       "ref": "7hq2k9xa",
         *       "role": "tool",
         *       "toolName": "bash",
         *       "checkpointNum": 3,
         *       "position": 41,
         *       "source": "compact",
         *       "format": "openai",
         *       "text": "118\tdef _add_batch(self, batch):\n119\t    try:\n120\t        self._collection.upsert(**batch)",
         *       "totalLines": 2210,
         *       "truncated": false,
         *       "redactions": 0
         *     }
         */
        ArchivedMessage: {
            ref: string;
            role: string;
            toolName: string | null;
            checkpointNum: number | null;
            position: number;
            /** @enum {string} */
            source: "compact" | "session" | "proxy";
            /**
             * @description Format of `messages`.
             * @enum {string}
             */
            format: "openai" | "anthropic" | "ai-sdk" | "responses";
            /** @description The original message as sent (secrets redacted), in `format`; for an assistant message with tool calls, followed by their archived results, so the pair stays whole. Omitted when `lines` or `grep` is given. */
            messages?: unknown[];
            /** @description With `lines` or `grep`: the selected lines, each prefixed with its number and a tab. */
            text?: string;
            /** @description Lines in the message's text. */
            totalLines: number;
            /** @description With `grep`: lines that matched. */
            matchedLines?: number;
            /** @description True when the selection was cut at 64 KB: ask for a narrower `lines` range. */
            truncated: boolean;
            /** @description Secrets redacted in this message before it was archived. */
            redactions: number;
        };
        BreakerStatus: {
            /**
             * @description `open`: automatic compactions (the proxy, GET /context) of this session are refused.
             * @enum {string}
             */
            state: "closed" | "open";
            /** @description Why it opened. */
            reason?: string;
            /** @description Seconds until an automatic compaction is tried again. */
            retryAfterSeconds?: number;
            /** @description ISO 8601. */
            openedAt?: string;
            /** @description The latest automatic compactions since the last manual one or reset, oldest first: when, at how many messages, what they freed of which window. */
            recent: {
                at: string;
                messages: number;
                freedTokens: number;
                windowTokens: number;
            }[];
        };
        /**
         * @example {
         *       "sessionId": "agent-run-42",
         *       "checkpointNum": 3,
         *       "round": 3,
         *       "strategy": "rules",
         *       "fromMessageIndex": 2,
         *       "toMessageIndex": 13,
         *       "messagesCompressed": 12,
         *       "summary": "## Session Summary (Compaction Round 3)\n\n### Original Task\nFix the failing test in src/db.ts\n…",
         *       "keyFacts": {
         *         "currentTask": "Fix the failing test in src/db.ts",
         *         "completedSteps": [
         *           "edited test/db.test.ts: removed `afterEach(() => close())`",
         *           "ran npm test -- test/db.test.ts (ok)"
         *         ],
         *         "pendingSteps": [],
         *         "keyDecisions": [],
         *         "relevantFiles": [
         *           "test/db.test.ts",
         *           "src/db.ts",
         *           "src/pool.ts",
         *           "src/config.ts"
         *         ],
         *         "errors": [
         *           "npm test -- test/db.test.ts: Error: Called end on pool more than once (resolved)"
         *         ],
         *         "userRequests": []
         *       },
         *       "originalTokens": 7124,
         *       "compressedTokens": 422,
         *       "compressionRatio": 16.88,
         *       "summaryCostUsd": 0,
         *       "targetTokens": 1500,
         *       "model": "gpt-4o",
         *       "durationMs": 63,
         *       "summaryTokens": 308,
         *       "foldedFrom": null,
         *       "createdAt": "2026-11-22T13:23:20.601Z"
         *     }
         */
        Checkpoint: {
            /** @description The session it belongs to. */
            sessionId: string;
            /** @description 1, 2, ... per session, gap-free in the order compactions were stored. */
            checkpointNum: number;
            /** @description Compaction round of the summary (null when the compaction only masked). */
            round: number | null;
            /** @description What produced it: a strategy of GET /strategies (mask, rules, llm, truncate). */
            strategy: string | null;
            /** @description First compacted message index of the compacted input. */
            fromMessageIndex: number | null;
            /** @description Last compacted message index of the compacted input. */
            toMessageIndex: number | null;
            /** @description Messages summarised or masked. */
            messagesCompressed: number | null;
            /** @description The summary text (`## Session Summary (Compaction Round N)` ...); empty when the compaction only masked. */
            summary: string;
            /** @description Continuation facts: currentTask, completedSteps, pendingSteps, keyDecisions, relevantFiles, errors, userRequests. */
            keyFacts: {
                [key: string]: unknown;
            } | null;
            /** @description Tokens of the conversation before compaction. */
            originalTokens: number | null;
            /** @description Tokens after. */
            compressedTokens: number | null;
            /** @description originalTokens / compressedTokens. */
            compressionRatio: number | null;
            /** @description Cost of the summarizer calls. */
            summaryCostUsd: number | null;
            /** @description The budget it compacted to (null on checkpoints stored before this field existed). */
            targetTokens: number | null;
            /** @description The model the tokens were counted for. */
            model: string | null;
            /** @description How long the compaction took, in milliseconds (folded: the sum). */
            durationMs: number | null;
            /** @description Tokens of the summary it wrote (null when it only masked, or for a fold). */
            summaryTokens: number | null;
            /** @description When older checkpoints were folded into this one (COMPACTION_MAX_CHECKPOINTS): every original checkpoint number it stands for, its own included. Totals are their sums. */
            foldedFrom: number[] | null;
            /** @description ISO 8601. */
            createdAt: string;
        };
        /**
         * @description A conversation to compact, and how.
         * @example {
         *       "model": "gpt-4o",
         *       "targetTokens": 3000,
         *       "keepRecent": 2,
         *       "sessionId": "agent-run-42",
         *       "messages": [
         *         {
         *           "role": "system",
         *           "content": "You are a coding agent."
         *         },
         *         {
         *           "role": "user",
         *           "content": "Fix the failing test in src/db.ts"
         *         },
         *         {
         *           "role": "assistant",
         *           "content": "Running the tests.",
         *           "tool_calls": [
         *             {
         *               "id": "call_2",
         *               "type": "function",
         *               "function": {
         *                 "name": "bash",
         *                 "arguments": "{\"command\":\"npm test -- test/db.test.ts\"}"
         *               }
         *             }
         *           ]
         *         },
         *         {
         *           "role": "tool",
         *           "tool_call_id": "call_2",
         *           "content": "FAILED test/db.test.ts > closes the pool\nError: Called end on pool more than once\n… 6,000 more characters …"
         *         },
         *         {
         *           "role": "assistant",
         *           "content": "The test fails because the pool is closed twice: close() runs in both afterEach and the shutdown hook. I removed the afterEach call."
         *         },
         *         {
         *           "role": "user",
         *           "content": "Good. Also make close() idempotent."
         *         }
         *       ]
         *     }
         */
        CompactRequest: {
            /** @description The conversation, in OpenAI Chat Completions, Anthropic Messages, Vercel AI SDK ModelMessage or OpenAI Responses (input items) format. The format is detected; `format` overrides. */
            messages: unknown[];
            /**
             * @description Message format. Detected automatically when omitted; a plain user/assistant string array is read as openai (identical in every format).
             * @enum {string}
             */
            format?: "openai" | "anthropic" | "ai-sdk" | "responses";
            /** @description Model the conversation is for (e.g. gpt-4o, claude-sonnet-4-5). Sets the limits and the tokenizer. Default: DEFAULT_MODEL. */
            model?: string;
            /** @description Anthropic-style top-level system prompt (string or text blocks). With other formats it counts as a leading system message. */
            system?: string | unknown[];
            /** @description Token budget the output must fit (counted like /estimate for `model`). Default: the model's compaction threshold, as /estimate returns it. */
            targetTokens?: number;
            /** @description Leading user turns kept verbatim (the original task). System messages before them are always kept. Default 1. */
            keepFirst?: number;
            /** @description Most recent messages kept verbatim; the boundary moves earlier rather than separate a tool call from its results. Given, the window is kept whenever it fits. Default 10 (COMPACTION_KEEP_RECENT), taking at most half of what the system prompt and task leave of the target when more would leave the summary under 1,000 tokens: past that it shrinks (the last message always stays) so the summary has room. */
            keepRecent?: number;
            /** @description Instead of keepRecent: keep the most recent messages up to this many tokens. Giving both is a 400. */
            keepRecentTokens?: number;
            /** @description A strategy or a pipeline, cheapest first (GET /strategies lists them). `mask`: replace old tool results with short placeholders; the calls stay. `rules`: offline structured summary (task, files, failures, decisions, next step), deterministic and free. `llm`: summary written by the configured model. `truncate`: keep the start and end of the text. The pipeline's summarizers fall back to rules → truncate. Default: COMPACTION_DEFAULT_STRATEGY; unset, `["mask","llm","rules"]` when the server has a summarizer configured (an OpenAI or Anthropic key), else `["mask","rules"]`. */
            strategy?: ("mask" | "rules" | "llm" | "truncate") | ("mask" | "rules" | "llm" | "truncate")[];
            /** @description The most recent tool results are never masked. Default 3. */
            keepToolResults?: number;
            /** @description Tools whose results are never masked (e.g. a memory or plan tool). */
            excludeTools?: string[];
            /** @description Also shorten tool-call arguments of masked calls: a token threshold, or true for 200. Default false. */
            clearToolInputs?: boolean | number;
            /** @description Keep error messages and failing commands of masked or summarised tool results. Default true. */
            preserveErrorDetails?: boolean;
            /** @description Cap on the summary sections (task, instructions, files, errors, decisions, state, pending work); never more than 15% of targetTokens. The action log appended to the same message uses what the rest of the budget leaves. Default 2000 (COMPACTION_MAX_SUMMARY_TOKENS). */
            maxSummaryTokens?: number;
            /**
             * @description Role of the summary message. Default user. With Anthropic, system/developer put it in the top-level `system`.
             * @enum {string}
             */
            summaryRole?: "system" | "developer" | "user" | "assistant";
            /** @description Which configured model writes the `llm` summary, so only with `llm` in strategy (or in COMPACTION_DEFAULT_STRATEGY when strategy is omitted): otherwise a 400 naming body.summarizer. Keys and base URLs come only from server configuration: any other field (baseURL, apiKey, url...) is a 400. Default: SUMMARIZER_DEFAULT_PROVIDER. */
            summarizer?: {
                /**
                 * @description Summarizer provider. One without an API key on the server is no usable summarizer: the llm step falls back, with the reason in `fallbacks`.
                 * @enum {string}
                 */
                provider: "openai" | "anthropic";
                /** @description One of the models the server allows (SUMMARIZER_OPENAI_MODELS / SUMMARIZER_ANTHROPIC_MODELS); another is a 400. Default: the first one. */
                model?: string;
            };
            /** @description Extra guidance for the summary (what to keep), for the llm strategy. */
            instructions?: string;
            /**
             * @description `append` adds instructions to the built-in summary prompt; `replace` replaces its guidance. Default append.
             * @enum {string}
             */
            instructionsMode?: "replace" | "append";
            /** @description What the summary should give room to (a subsystem, a decision, a file). Added to the default guidance, never replacing it: the llm prompt gets it as a section of its own; the rules summary ranks the action-log lines mentioning its words above the others of their importance. `instructions` with `instructionsMode: replace` stays the way to replace the prompt. */
            focus?: string;
            /** @description Indices (0-based, into `messages`) of messages kept verbatim, byte for byte, wherever they sit, with the tool calls or results they pair with. Checked on the output: what the budget cannot hold is a 422 `contract_unkept` listing it; an index past the end is a 400. */
            pin?: number[];
            /** @description Strings that must appear in the output (an identifier, a rule, a URL, a constraint). compactd keeps the latest message holding one when the summary does not; what the budget cannot hold is a 422 `contract_unkept`; a string not in the input is a 400 naming it. */
            preserve?: string[];
            /** @description Compact only when it saves at least this many tokens; otherwise the conversation comes back unchanged (compacted: false, with the reason). Wins over targetTokens: a small saving is not worth the prompt-cache break it costs. Checked on the plan before any summarizer is called. */
            minGainTokens?: number;
            /** @description The thinking policy: Anthropic thinking and redacted_thinking blocks, AI SDK reasoning parts and Responses reasoning items of earlier turns are dropped first, before any strategy. The turn in progress (the conversation ends with tool calls or results) keeps its reasoning, as Anthropic requires; pinned messages are not touched; a Responses reasoning item whose turn carries server item ids stays (the API refuses those items without it). The response reports the tokens freed (`thinking`). */
            thinking?: {
                /** @description Assistant turns (counted from the end) whose reasoning stays; `all` keeps every one; 0 drops all but the turn in progress. */
                keep: number | "all";
            };
            /** @description The prompt cache's state and prices: the event then reports what this compaction costs in cache writes against what it saves over the next requests (`event.cache`; docs/api.md has the arithmetic). */
            cache?: {
                /** @description Tokens of this conversation the provider has cached now (its usage's cached_tokens / cache_read_input_tokens). Default: all of it. */
                cachedPrefixTokens?: number;
                /** @description USD per million uncached input tokens. Default: the model registry's. */
                inputPrice?: number;
                /** @description USD per million cached tokens read. Default: the registry's input price times the provider's cache discount. */
                cacheReadPrice?: number;
                /** @description USD per million tokens written to the cache. Default: the input price (OpenAI, Google, DeepSeek) or 1.25× it (Anthropic, unknown models). */
                cacheWritePrice?: number;
                /** @description Requests over which the saving is counted, the next one included. Default 10. */
                horizonTurns?: number;
            };
            /**
             * @description `when-profitable`: compact only when the saving over `cache.horizonTurns` outweighs the cache writes (checked on the plan before a summarizer is paid, and on the result); otherwise compacted: false with the reason. Default always.
             * @enum {string}
             */
            cachePolicy?: "always" | "when-profitable";
            /** @description Return the plan and estimated result without changing anything, calling a model or storing a checkpoint. */
            dryRun?: boolean;
            /** @description Compact even when the conversation already fits targetTokens. A conversation smaller than any compaction of it could be comes back unchanged (compacted: false, with the reason). */
            force?: boolean;
            /** @description Your id for the conversation (1-200 characters of A-Z a-z 0-9 . _ : -). When given, each compaction is stored as a numbered checkpoint, and round numbers continue from the latest one. */
            sessionId?: string;
            /**
             * @description Input whose tool calls and results do not pair up: `repair` drops orphan results and answers missing ones (listed in `repairs`); `reject` is a 400. Default repair.
             * @enum {string}
             */
            onBrokenInput?: "repair" | "reject";
            /** @description Override the model's context window (e.g. for an unknown model). */
            contextLimit?: number;
            /** @description Tokens reserved for the system prompt and tools. Default 2000 (COMPACTION_SYSTEM_RESERVE). */
            systemReserve?: number;
            /** @description Tokens reserved for the reply. Default 4000 (COMPACTION_OUTPUT_RESERVE). */
            outputReserve?: number;
            /** @description Tokens kept free for estimation error. Default 5000 (COMPACTION_SAFETY_BUFFER). */
            safetyBuffer?: number;
            /** @description Fraction of the available window at which to compact. Default 0.8. */
            thresholdPercent?: number;
        };
        /**
         * @example {
         *       "compacted": true,
         *       "messages": [
         *         {
         *           "role": "system",
         *           "content": "You are a coding agent."
         *         },
         *         {
         *           "role": "user",
         *           "content": "Fix the failing test in src/db.ts"
         *         },
         *         {
         *           "role": "user",
         *           "content": "## Session Summary (Compaction Round 1)\n\n### Original Task\nFix the failing test in src/db.ts\n\n### Completed Work\n| File | Fate | What changed |\n|---|---|---|\n| test/db.test.ts | edited | +0/-1; removed `afterEach(() => close())` |\n\n### Errors & Resolutions\n- `npm test -- test/db.test.ts` → exit 1: Error: Called end on pool more than once — resolved: a later run of the same command succeeded\n    Error: Called end on pool more than once at Pool.end (node_modules/pg-pool/index.js:434:19) at close (src/pool.ts:4:14) Tests: 1 failed, 11 passed\n\n### Current State\n- Last change: test/db.test.ts (edited)\n- Last command: `npm test -- test/db.test.ts` → exit 0\n\n### Commands Run\n- `npm test -- test/db.test.ts` (×2, last exit 0, failed earlier)\n\n### Earlier Actions (oldest first, condensed)\n- read_file src/db.ts\n- bash npm test -- test/db.test.ts → exit 1: Error: Called end on pool more than once\n- read_file src/pool.ts\n- note: The pool is closed in afterEach and again by the shutdown hook.\n- edit_file test/db.test.ts (removed `afterEach(() => close())`)\n- read_file src/config.ts"
         *         },
         *         {
         *           "role": "assistant",
         *           "content": "Running the tests.",
         *           "tool_calls": [
         *             {
         *               "id": "call_6",
         *               "type": "function",
         *               "function": {
         *                 "name": "bash",
         *                 "arguments": "{\"command\":\"npm test -- test/db.test.ts\"}"
         *               }
         *             }
         *           ]
         *         },
         *         {
         *           "role": "tool",
         *           "tool_call_id": "call_6",
         *           "content": "Tests: 12 passed\nExit code 0"
         *         },
         *         {
         *           "role": "assistant",
         *           "content": "The test fails because the pool is closed twice: close() runs in both afterEach and the shutdown hook. I removed the afterEach call."
         *         },
         *         {
         *           "role": "user",
         *           "content": "Good. Also make close() idempotent."
         *         }
         *       ],
         *       "format": "openai",
         *       "model": "gpt-4o",
         *       "targetTokens": 1500,
         *       "strategy": "rules",
         *       "fallbacks": [],
         *       "repairs": [],
         *       "plan": [
         *         {
         *           "from": 0,
         *           "to": 1,
         *           "action": "keep",
         *           "reason": "system prompt and original task"
         *         },
         *         {
         *           "from": 2,
         *           "to": 11,
         *           "action": "summarize",
         *           "reason": "one-line digests in the summary's action log"
         *         },
         *         {
         *           "from": 12,
         *           "to": 13,
         *           "action": "condense",
         *           "reason": "tool results masked, inputs and prose condensed"
         *         },
         *         {
         *           "from": 14,
         *           "to": 15,
         *           "action": "keep",
         *           "reason": "recent messages"
         *         }
         *       ],
         *       "event": {
         *         "round": 1,
         *         "tokensBefore": 7124,
         *         "tokensAfter": 422,
         *         "compressionRatio": 16.88,
         *         "messagesCompacted": 12,
         *         "strategy": "rules",
         *         "summaryTokens": 308,
         *         "summaryRoomTokens": 320,
         *         "costUsd": 0,
         *         "durationMs": 63
         *       },
         *       "summary": {
         *         "text": "## Session Summary (Compaction Round 1)\n\n### Original Task\nFix the failing test in src/db.ts\n…",
         *         "keyFacts": {
         *           "currentTask": "Fix the failing test in src/db.ts",
         *           "completedSteps": [
         *             "edited test/db.test.ts: removed `afterEach(() => close())`",
         *             "ran npm test -- test/db.test.ts (ok)"
         *           ],
         *           "pendingSteps": [],
         *           "keyDecisions": [],
         *           "relevantFiles": [
         *             "test/db.test.ts",
         *             "src/db.ts",
         *             "src/pool.ts",
         *             "src/config.ts"
         *           ],
         *           "errors": [
         *             "npm test -- test/db.test.ts: Error: Called end on pool more than once (resolved)"
         *           ],
         *           "userRequests": []
         *         },
         *         "role": "user",
         *         "index": 2
         *       },
         *       "checkpoint": {
         *         "sessionId": "agent-run-42",
         *         "checkpointNum": 1
         *       }
         *     }
         */
        CompactResponse: {
            /** @description False when the input is returned unchanged (it fits, dry run, or compaction would not help). */
            compacted: boolean;
            /** @description Why nothing was changed, when compacted is false. */
            reason?: string;
            /** @description The conversation in the input format. Kept messages are byte-identical to the input objects. */
            messages: unknown[];
            /** @description Top-level system prompt: Anthropic output, or the `system` you sent (returned unchanged). */
            system?: unknown;
            /**
             * @description Format of `messages` (the input format).
             * @enum {string}
             */
            format: "openai" | "anthropic" | "ai-sdk" | "responses";
            /** @description Model the budget was counted for. */
            model: string;
            /** @description The budget used (the request's, or the model's compaction threshold). */
            targetTokens: number;
            /**
             * @description What produced the result: the summarizer that wrote the summary, `mask` when masking sufficed, `none` when unchanged.
             * @enum {string}
             */
            strategy: "mask" | "rules" | "llm" | "truncate" | "none";
            /** @description Strategies that were tried and failed or were unavailable, in order, with the reason (e.g. `rate_limited: openai gpt-4o-mini: rate limited (HTTP 429)`). */
            fallbacks: {
                strategy: string;
                reason: string;
            }[];
            /** @description Fixes applied to broken tool-call pairing in the input (onBrokenInput repair). */
            repairs: {
                index: number;
                action: string;
            }[];
            /** @description What happens to each range of input messages. */
            plan: {
                /** @description First input index (-1: the top-level system). */
                from: number;
                to: number;
                /** @enum {string} */
                action: "keep" | "mask" | "condense" | "summarize";
                reason: string;
            }[];
            /** @description Figures of this compaction, for monitoring. */
            event: {
                /** @description Compaction round: 1, or one more than the previous summary (in the input or the session). */
                round: number;
                tokensBefore: number;
                /** @description Tokens of the output (estimated for a dry run). */
                tokensAfter: number;
                /** @description tokensBefore / tokensAfter. */
                compressionRatio: number;
                messagesCompacted: number;
                strategy: string;
                /** @description Tokens of the summary message as sent: its sections and action log (the reserve, for a dry run). */
                summaryTokens: number;
                /** @description The room the summary message had: targetTokens less the rest of the output (head, kept turns, tail). summaryTokens against it is how much of the budget the summary left unused; 0 without a summary. */
                summaryRoomTokens: number;
                /** @description Cost of summarizer calls (0 offline). */
                costUsd: number;
                durationMs: number;
                /** @description The cache economics of this compaction (with `cache` or `cachePolicy`). */
                cache?: {
                    inputPrice: number;
                    cacheReadPrice: number;
                    cacheWritePrice: number;
                    tokensBefore: number;
                    tokensAfter: number;
                    cachedPrefixTokens: number;
                    /** @description The output's leading tokens that are the input's, unchanged: still cached. */
                    keptPrefixTokens: number;
                    horizonTurns: number;
                    /** @description Extra cache writes the next request pays because of the compaction. */
                    writeCostUsd: number;
                    summarizerCostUsd: number;
                    /** @description The next horizonTurns requests without compacting. */
                    costWithoutUsd: number;
                    /** @description The same requests after compacting, the summarizer included. */
                    costWithUsd: number;
                    /** @description costWithoutUsd − costWithUsd. */
                    savingUsd: number;
                    /** @description Requests after which the compaction has paid for itself; null: never. */
                    breakEvenTurns: number | null;
                    profitable: boolean;
                    /** @description true: the plan's estimate, checked before any summarizer was paid; false: the result's figures. */
                    estimated: boolean;
                };
            };
            /** @description The summary inserted, when one was written. */
            summary?: {
                /** @description The summary, starting with `## Session Summary (Compaction Round N)`. */
                text: string;
                /** @description Continuation facts read from the summary: task, steps done and pending, decisions, files, errors, later user requests. */
                keyFacts: {
                    currentTask: string;
                    completedSteps: string[];
                    pendingSteps: string[];
                    keyDecisions: string[];
                    relevantFiles: string[];
                    errors: string[];
                    userRequests: string[];
                };
                /** @description Role of the summary message. */
                role: string;
                /** @description Index of the summary message in `messages` (-1: in the top-level system). */
                index: number;
            };
            /** @description With `pin` or `preserve`: what the preservation contract checked (a 200 means all of it held). */
            contract?: {
                /** @description The pinned message indices, each checked present byte for byte. */
                pinned: number[];
                /** @description The preserved strings, each checked present. */
                preserved: string[];
            };
            /** @description What the thinking policy did. */
            thinking?: {
                keep: number | "all";
                /** @description Reasoning blocks or items removed. */
                blocksDropped: number;
                /** @description Messages whose reasoning was removed (a message of reasoning alone is removed whole). */
                messagesChanged: number;
                /** @description Reasoning the policy would drop but the provider's rules keep (Responses items tied to server ids). */
                keptForProvider: number;
                /** @description Tokens the removed reasoning took. */
                tokensFreed: number;
            };
            /** @description The checkpoint this compaction was stored as (sessionId given, compaction done). */
            checkpoint?: {
                sessionId: string;
                /** @description Number of the stored checkpoint (1, 2, ... per session, gap-free). */
                checkpointNum: number;
                /** @description Present when storing this checkpoint took the session over COMPACTION_MAX_CHECKPOINTS and the oldest were folded into one. */
                folded?: {
                    /** @description The checkpoint the oldest ones were folded into (it keeps its number). */
                    into: number;
                    /** @description Every original checkpoint number that checkpoint now stands for. */
                    from: number[];
                };
            };
            archive?: components["schemas"]["ArchiveReport"];
        };
        /**
         * @example {
         *       "strategies": [
         *         {
         *           "name": "mask",
         *           "description": "replace old tool results with short placeholders; the calls stay",
         *           "needsLlm": false,
         *           "summarizes": false,
         *           "keeps": true
         *         },
         *         {
         *           "name": "rules",
         *           "description": "offline structured summary (task, files, failures, decisions, next step), deterministic and free",
         *           "needsLlm": false,
         *           "summarizes": true,
         *           "keeps": false
         *         },
         *         {
         *           "name": "llm",
         *           "description": "summary written by the configured model",
         *           "needsLlm": true,
         *           "summarizes": true,
         *           "keeps": false
         *         },
         *         {
         *           "name": "truncate",
         *           "description": "keep the start and end of the text",
         *           "needsLlm": false,
         *           "summarizes": true,
         *           "keeps": false
         *         }
         *       ],
         *       "default": [
         *         "mask",
         *         "rules"
         *       ],
         *       "pipelines": [
         *         [
         *           "mask",
         *           "rules"
         *         ],
         *         [
         *           "mask"
         *         ],
         *         [
         *           "rules"
         *         ],
         *         [
         *           "mask",
         *           "llm"
         *         ],
         *         [
         *           "truncate"
         *         ]
         *       ]
         *     }
         */
        StrategiesResponse: {
            /** @description Every strategy `strategy` accepts, in the order of the docs. */
            strategies: {
                /** @enum {string} */
                name: "mask" | "rules" | "llm" | "truncate";
                description: string;
                /** @description Runs only with a summarizer model configured on the server; without one it falls back (see fallbacks). */
                needsLlm: boolean;
                /** @description Writes the summary of the compacted turns. */
                summarizes: boolean;
                /** @description Shrinks the middle turns that stay in the conversation. */
                keeps: boolean;
            }[];
            /** @description The pipeline used when a request gives no strategy (COMPACTION_DEFAULT_STRATEGY). */
            default: ("mask" | "rules" | "llm" | "truncate")[];
            /** @description Pipelines worth offering in a menu: the default first, then each strategy as it is usually run. */
            pipelines: ("mask" | "rules" | "llm" | "truncate")[][];
        };
        DisplayMessage: {
            /** @description The role: system, developer, user, assistant or tool. */
            role: string;
            /** @description Its text, reasoning (prefixed "(reasoning) ") and images ("[image]"), one a line. */
            text: string;
            /** @description Its tool calls. */
            calls: {
                id: string;
                name: string;
                /** @description The arguments as sent, serialized. */
                args: string;
            }[];
            /** @description Its tool results. */
            results: {
                /** @description The call it answers. */
                id: string;
                text: string;
                isError?: boolean;
            }[];
        };
        DisplayRequest: {
            /** @description The conversation, in OpenAI Chat Completions, Anthropic Messages, Vercel AI SDK ModelMessage or OpenAI Responses (input items) format. The format is detected; `format` overrides. */
            messages: unknown[];
            /**
             * @description Message format. Detected automatically when omitted; a plain user/assistant string array is read as openai (identical in every format).
             * @enum {string}
             */
            format?: "openai" | "anthropic" | "ai-sdk" | "responses";
            /** @description Anthropic-style top-level system prompt (string or text blocks). With other formats it counts as a leading system message. */
            system?: string | unknown[];
        };
        DisplayResponse: {
            /**
             * @description The detected (or given) format.
             * @enum {string}
             */
            format: "openai" | "anthropic" | "ai-sdk" | "responses";
            /** @description The top-level system prompt, when given. */
            system?: components["schemas"]["DisplayMessage"];
            messages: components["schemas"]["DisplayMessage"][];
        };
        /**
         * @example {
         *       "formats": [
         *         {
         *           "name": "openai",
         *           "label": "OpenAI"
         *         },
         *         {
         *           "name": "anthropic",
         *           "label": "Anthropic"
         *         }
         *       ],
         *       "default": "openai"
         *     }
         */
        FormatsResponse: {
            /** @description Every message format the API reads and writes, in the order the docs list them. */
            formats: {
                /**
                 * @description The value of `format` in requests and responses.
                 * @enum {string}
                 */
                name: "openai" | "anthropic" | "ai-sdk" | "responses";
                /** @description Its name for people. */
                label: string;
            }[];
            /**
             * @description The format assumed when nothing can be detected (a plain user/assistant string array).
             * @enum {string}
             */
            default: "openai" | "anthropic" | "ai-sdk" | "responses";
        };
        /**
         * @description A conversation to count.
         * @example {
         *       "model": "gpt-4o",
         *       "messages": [
         *         {
         *           "role": "system",
         *           "content": "You are a coding agent."
         *         },
         *         {
         *           "role": "user",
         *           "content": "Fix the failing test in src/db.ts"
         *         }
         *       ]
         *     }
         */
        EstimateRequest: {
            /** @description The conversation, in OpenAI Chat Completions, Anthropic Messages, Vercel AI SDK ModelMessage or OpenAI Responses (input items) format. The format is detected; `format` overrides. */
            messages: unknown[];
            /**
             * @description Message format. Detected automatically when omitted; a plain user/assistant string array is read as openai (identical in every format).
             * @enum {string}
             */
            format?: "openai" | "anthropic" | "ai-sdk" | "responses";
            /** @description Model the conversation is for (e.g. gpt-4o, claude-sonnet-4-5). Sets the limits and the tokenizer. Default: DEFAULT_MODEL. */
            model?: string;
            /** @description Anthropic-style top-level system prompt (string or text blocks). With other formats it counts as a leading system message. */
            system?: string | unknown[];
            /** @description Tool definitions sent with the request (OpenAI `tools` or Anthropic `tools`); their schemas count toward the prompt. */
            tools?: unknown[];
            /**
             * @description `tokenizer`: exact o200k_base/cl100k_base counts (OpenAI models). `heuristic`: fast character-class estimate. `provider`: Anthropic count_tokens, falling back to the heuristic when unavailable. Default: tokenizer for OpenAI models, heuristic with a safety margin for others.
             * @enum {string}
             */
            method?: "tokenizer" | "heuristic" | "provider";
            /** @description Override the model's context window (e.g. for an unknown model). */
            contextLimit?: number;
            /** @description Tokens reserved for the system prompt and tools. Default 2000 (COMPACTION_SYSTEM_RESERVE). */
            systemReserve?: number;
            /** @description Tokens reserved for the reply. Default 4000 (COMPACTION_OUTPUT_RESERVE). */
            outputReserve?: number;
            /** @description Tokens kept free for estimation error. Default 5000 (COMPACTION_SAFETY_BUFFER). */
            safetyBuffer?: number;
            /** @description Fraction of the available window at which to compact. Default 0.8. */
            thresholdPercent?: number;
        };
        /**
         * @example {
         *       "model": "gpt-4o",
         *       "modelKnown": true,
         *       "provider": "openai",
         *       "format": "openai",
         *       "method": "tokenizer",
         *       "encoding": "o200k_base",
         *       "safetyMargin": 1,
         *       "totalTokens": 27,
         *       "toolsTokens": 0,
         *       "perMessage": [
         *         {
         *           "index": 0,
         *           "role": "system",
         *           "tokens": 10
         *         },
         *         {
         *           "index": 1,
         *           "role": "user",
         *           "tokens": 14
         *         }
         *       ],
         *       "contextLimit": 128000,
         *       "maxOutputTokens": 16384,
         *       "threshold": 93600,
         *       "shouldCompact": false
         *     }
         */
        EstimateResponse: {
            /** @description The model the limits refer to (the request's, or DEFAULT_MODEL). */
            model: string;
            /** @description False when the model is not in the registry and configurable defaults were used. */
            modelKnown: boolean;
            /** @description openai, anthropic, google, deepseek or unknown. */
            provider: string;
            /**
             * @description The detected (or given) message format.
             * @enum {string}
             */
            format: "openai" | "anthropic" | "ai-sdk" | "responses";
            /**
             * @description The method that produced totalTokens.
             * @enum {string}
             */
            method: "tokenizer" | "heuristic" | "provider";
            /** @description Tokenizer encoding, when method is tokenizer. */
            encoding?: string;
            /** @description Multiplier applied to heuristic counts for models whose tokenizer is not o200k-like (1 = none). */
            safetyMargin: number;
            /** @description Prompt tokens: messages, per-message overhead, tools and reply priming. */
            totalTokens: number;
            /** @description Tokens of the tool definitions, included in totalTokens. */
            toolsTokens: number;
            /** @description Tokens of each message, overhead included. With method provider these are heuristic estimates. Left out with `?perMessage=false`. */
            perMessage?: {
                /** @description Index in `messages`; -1 is a separate system prompt. */
                index: number;
                role: string;
                tokens: number;
            }[];
            /** @description The model's context window. */
            contextLimit: number;
            /** @description The model's maximum output tokens. */
            maxOutputTokens: number;
            /** @description (contextLimit − systemReserve − outputReserve − safetyBuffer) × thresholdPercent. 0 when the server's default reserves fill the model's window (see thresholdNote). */
            threshold: number;
            /** @description Present when threshold is 0 because the model's window is smaller than the server's default reserves (gpt-4's 8,192 < 11,000): the numbers, and what to give (smaller reserves, or targetTokens to /compact). The count is exact all the same. */
            thresholdNote?: string;
            /** @description totalTokens ≥ threshold (always true when threshold is 0). */
            shouldCompact: boolean;
            /** @description Present when the requested method was unavailable and the heuristic was used instead. */
            fallback?: {
                from: string;
                reason: string;
            };
        };
        /**
         * @description An agent session log to convert.
         * @example {
         *       "format": "openai",
         *       "log": "{\"type\":\"user\",\"uuid\":\"u1\",\"parentUuid\":null,\"sessionId\":\"s-1\",\"timestamp\":\"2026-11-20T09:00:00.000Z\",\"message\":{\"role\":\"user\",\"content\":\"Fix the failing test in src/db.ts\"}}\n{\"type\":\"assistant\",\"uuid\":\"a1\",\"parentUuid\":\"u1\",\"sessionId\":\"s-1\",\"timestamp\":\"2026-11-20T09:00:05.000Z\",\"message\":{\"id\":\"msg_1\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",\"content\":[{\"type\":\"text\",\"text\":\"Running the tests.\"}],\"usage\":{\"input_tokens\":812,\"output_tokens\":9}}}\n"
         *     }
         */
        ImportRequest: {
            /** @description The log: the file's text as one string (JSON Lines or a JSON document, exactly as the agent wrote it), or a JSON document (SWE-agent trajectory, Gemini CLI session) as a value. Empty text, or text that is no log, is a 400 invalid_log. The whole body is limited to BODY_LIMIT_BYTES. */
            log: string | unknown[] | {
                [key: string]: unknown;
            };
            /**
             * @description Which agent wrote it: claude-code (Claude Code session JSONL), codex (Codex CLI rollout JSONL), gemini-cli (Gemini CLI session JSON), pi (pi session JSONL), swe-agent (SWE-agent and mini-swe-agent trajectories). Detected from the content when omitted.
             * @enum {string}
             */
            source?: "claude-code" | "codex" | "gemini-cli" | "pi" | "swe-agent";
            /**
             * @description Format of the returned messages: OpenAI Chat Completions (default), Anthropic Messages, Vercel AI SDK ModelMessage or OpenAI Responses items (a Codex rollout keeps its own items).
             * @enum {string}
             */
            format?: "openai" | "anthropic" | "ai-sdk" | "responses";
            /**
             * @description `all` (default): every message of the log. `current`: what the agent's model saw last: the leading system messages, then everything from the latest compaction's summary on.
             * @enum {string}
             */
            scope?: "all" | "current";
        };
        /**
         * @example {
         *       "source": "claude-code",
         *       "detected": true,
         *       "format": "openai",
         *       "scope": "all",
         *       "messages": [
         *         {
         *           "role": "user",
         *           "content": "Fix the failing test in src/db.ts"
         *         },
         *         {
         *           "role": "assistant",
         *           "content": "Running the tests."
         *         }
         *       ],
         *       "compactions": [],
         *       "issues": [],
         *       "issuesOmitted": 0,
         *       "repairs": [],
         *       "stats": {
         *         "lines": 2,
         *         "entries": 2,
         *         "skipped": 0,
         *         "messages": 2
         *       },
         *       "session": {
         *         "id": "s-1",
         *         "model": "claude-sonnet-4-5",
         *         "startedAt": "2026-11-20T09:00:00.000Z"
         *       }
         *     }
         */
        ImportResponse: {
            /**
             * @description The agent that wrote the log.
             * @enum {string}
             */
            source: "claude-code" | "codex" | "gemini-cli" | "pi" | "swe-agent";
            /** @description True when `source` was detected from the content, false when given. */
            detected: boolean;
            /**
             * @description Format of `messages`.
             * @enum {string}
             */
            format: "openai" | "anthropic" | "ai-sdk" | "responses";
            /** @enum {string} */
            scope: "all" | "current";
            /** @description The conversation in `format`, tool calls paired with their results. Ready for /estimate, /compact or a provider. */
            messages: unknown[];
            /** @description Anthropic top-level system prompt (format anthropic, when the log has system messages). */
            system?: unknown;
            /** @description Compactions found in the log: Claude Code's compact_boundary and continued-session summary, Codex compacted items, Gemini CLI <state_snapshot>, pi compaction entries. */
            compactions: {
                /** @description Index in `messages` where the compaction took effect: the agent's summary message is there when `summary` is not null; messages before it are what the agent compacted. null: not in the returned messages (scope current, earlier compactions). */
                position: number | null;
                /** @description Line of the log that records the compaction; null in a JSON document. */
                line: number | null;
                /** @description Where in a JSON document. */
                path?: string;
                /**
                 * @description Claude Code's trigger, when recorded.
                 * @enum {string}
                 */
                trigger?: "auto" | "manual";
                /** @description Tokens in the context just before the compaction, when the log records them: Claude Code compactMetadata.preTokens, Codex token_count, pi tokensBefore, Gemini CLI record tokens; else null. */
                preTokens: number | null;
                /** @description The summary the agent wrote, without its harness wrapper; null when the log does not hold it. */
                summary: string | null;
                timestamp?: string;
            }[];
            /** @description Broken and unknown lines, skipped (never fatal), at most 200. */
            issues: {
                /** @description 1-based line of a line-based log; null in a JSON document. */
                line: number | null;
                /** @description Where in a JSON document, e.g. `messages[377]`. */
                path?: string;
                /**
                 * @description `broken`: not JSON, or not what its type promises. `unknown`: valid JSON of a type this importer does not know.
                 * @enum {string}
                 */
                kind: "broken" | "unknown";
                message: string;
            }[];
            /** @description Issues beyond the 200 listed. */
            issuesOmitted: number;
            /** @description Tool calls without a result answered with "[no result recorded]", results without a call dropped (as POST /compact onBrokenInput repair). */
            repairs: {
                line: number | null;
                path?: string;
                action: string;
            }[];
            stats: {
                /** @description Lines of a line-based log. */
                lines?: number;
                /** @description Entries read (JSON lines, or elements of a JSON document). */
                entries: number;
                /** @description Entries of known types that hold no conversation: metadata, UI events, token counts, subagent sidechains. */
                skipped: number;
                /** @description Messages returned. */
                messages: number;
            };
            /** @description What the log says about the session. */
            session: {
                /** @description The agent's own session id. */
                id?: string;
                cwd?: string;
                /** @description The last model the log names. */
                model?: string;
                /** @description The writer, when a source has several (swe-agent or mini-swe-agent). */
                agent?: string;
                agentVersion?: string;
                startedAt?: string;
            };
        };
        /**
         * @description An OpenAI Chat Completions request, passed on to UPSTREAM_OPENAI_URL/chat/completions (every other field unchanged; `stream` streams).
         * @example {
         *       "model": "gpt-4o",
         *       "messages": [
         *         {
         *           "role": "user",
         *           "content": "Hello"
         *         }
         *       ]
         *     }
         */
        ProxyChatCompletionsRequest: {
            /** @description The provider's model id: its threshold decides whether the request is compacted. */
            model: string;
            /** @description OpenAI Chat Completions messages: compacted past the threshold. */
            messages: unknown[];
        } & {
            [key: string]: unknown;
        };
        /**
         * @description An OpenAI Responses request, passed on to UPSTREAM_OPENAI_URL/responses. `instructions` are kept; with `previous_response_id` the provider holds the history and nothing is compacted.
         * @example {
         *       "model": "gpt-4o",
         *       "input": [
         *         {
         *           "role": "user",
         *           "content": "Hello"
         *         }
         *       ]
         *     }
         */
        ProxyResponsesRequest: {
            /** @description The provider's model id: its threshold decides whether the request is compacted. */
            model: string;
            /** @description Responses input items: compacted past the threshold (a string input never is). */
            input: string | unknown[];
        } & {
            [key: string]: unknown;
        };
        /**
         * @description An Anthropic Messages request, passed on to UPSTREAM_ANTHROPIC_URL/v1/messages. `system` is kept (a summary may be folded into it).
         * @example {
         *       "model": "claude-sonnet-4-5",
         *       "max_tokens": 1024,
         *       "messages": [
         *         {
         *           "role": "user",
         *           "content": "Hello"
         *         }
         *       ]
         *     }
         */
        ProxyMessagesRequest: {
            /** @description The provider's model id: its threshold decides whether the request is compacted. */
            model: string;
            /** @description Anthropic messages: compacted past the threshold. */
            messages: unknown[];
        } & {
            [key: string]: unknown;
        };
        /**
         * @description Anthropic's count_tokens request, answered by compactd's own counter (the heuristic for Anthropic models, with its margin).
         * @example {
         *       "model": "claude-sonnet-4-5",
         *       "messages": [
         *         {
         *           "role": "user",
         *           "content": "Hello"
         *         }
         *       ]
         *     }
         */
        ProxyCountTokensRequest: {
            /** @description The provider's model id: its threshold decides whether the request is compacted. */
            model: string;
            messages: unknown[];
        } & {
            [key: string]: unknown;
        };
        /**
         * @example {
         *       "input_tokens": 9
         *     }
         */
        ProxyCountTokensResponse: {
            input_tokens: number;
        };
        /**
         * @example {
         *       "sessionId": "agent-run-42",
         *       "version": 3,
         *       "content": "## Previously in This Session\n1. Asked \"Fix the failing test in src/db.ts\"; edited src/db.ts; `npm test` failed (exit 1): Error: Called end on pool more than once, later passed (2026-11-22 13:20Z, ~2.1k tokens) <!-- at=2026-11-22T13:20:00.000Z i=m k=fix f=src/db.ts -->\n\n## Yesterday\n\n## This Week\n",
         *       "text": "## Previously in This Session\n1. Asked \"Fix the failing test in src/db.ts\"; edited src/db.ts; `npm test` failed (exit 1): Error: Called end on pool more than once, later passed (2026-11-22 13:20Z, ~2.1k tokens)\n\n## Yesterday\n\n## This Week\n",
         *       "tokens": 96,
         *       "budget": 10000,
         *       "updatedAt": "2026-11-22T13:23:20.601Z",
         *       "source": "background",
         *       "stale": false,
         *       "evictedAwaitingSummary": 0,
         *       "update": null,
         *       "degraded": false
         *     }
         */
        SessionSummary: {
            /** @description The session. */
            sessionId: string;
            /** @description Summary version (0 while none exists). Versions are kept; the highest is current. */
            version: number;
            /** @description The summary document as stored, with each item's `<!-- … -->` machine comment (times, importance, files). Send this back to PUT /summary to edit it. */
            content: string;
            /** @description The same document without the machine comments: what to send to a model. */
            text: string;
            /** @description Tokens of `content`; never more than `budget`. */
            tokens: number;
            /** @description The session's summary budget, in tokens. */
            budget: number;
            /** @description When this version was written (ISO 8601). */
            updatedAt: string | null;
            /** @description Who wrote this version. */
            source: ("background" | "manual") | null;
            /** @description True when evicted messages are not folded in yet (an update is due), or when the database was unreachable. */
            stale: boolean;
            /** @description Evicted messages not yet in the summary. */
            evictedAwaitingSummary: number;
            /** @description The queued background update, if any. */
            update: {
                /**
                 * @description pending: queued; running: a worker holds it; failed: gave up after MAX_RETRIES.
                 * @enum {string}
                 */
                status: "pending" | "running" | "failed";
            } | null;
            /** @description True when the database could not be read: this is the last summary this process saw (or, with status 503, the placeholder "[Summary temporarily unavailable]"). */
            degraded: boolean;
        };
        /**
         * @example {
         *       "sessionId": "agent-run-42",
         *       "version": 3,
         *       "content": "## Previously in This Session\n1. Asked \"Fix the failing test in src/db.ts\"; edited src/db.ts; `npm test` failed (exit 1): Error: Called end on pool more than once, later passed (2026-11-22 13:20Z, ~2.1k tokens) <!-- at=2026-11-22T13:20:00.000Z i=m k=fix f=src/db.ts -->\n\n## Yesterday\n\n## This Week\n",
         *       "text": "## Previously in This Session\n1. Asked \"Fix the failing test in src/db.ts\"; edited src/db.ts; `npm test` failed (exit 1): Error: Called end on pool more than once, later passed (2026-11-22 13:20Z, ~2.1k tokens)\n\n## Yesterday\n\n## This Week\n",
         *       "tokens": 96,
         *       "budget": 10000,
         *       "updatedAt": "2026-11-22T13:23:20.601Z",
         *       "source": "manual",
         *       "stale": false,
         *       "evictedAwaitingSummary": 0,
         *       "update": null,
         *       "degraded": false,
         *       "continuationCarriedOver": []
         *     }
         */
        PutSessionSummaryResponse: {
            /** @description The session. */
            sessionId: string;
            /** @description Summary version (0 while none exists). Versions are kept; the highest is current. */
            version: number;
            /** @description The summary document as stored, with each item's `<!-- … -->` machine comment (times, importance, files). Send this back to PUT /summary to edit it. */
            content: string;
            /** @description The same document without the machine comments: what to send to a model. */
            text: string;
            /** @description Tokens of `content`; never more than `budget`. */
            tokens: number;
            /** @description The session's summary budget, in tokens. */
            budget: number;
            /** @description When this version was written (ISO 8601). */
            updatedAt: string | null;
            /** @description Who wrote this version. */
            source: ("background" | "manual") | null;
            /** @description True when evicted messages are not folded in yet (an update is due), or when the database was unreachable. */
            stale: boolean;
            /** @description Evicted messages not yet in the summary. */
            evictedAwaitingSummary: number;
            /** @description The queued background update, if any. */
            update: {
                /**
                 * @description pending: queued; running: a worker holds it; failed: gave up after MAX_RETRIES.
                 * @enum {string}
                 */
                status: "pending" | "running" | "failed";
            } | null;
            /** @description True when the database could not be read: this is the last summary this process saw (or, with status 503, the placeholder "[Summary temporarily unavailable]"). */
            degraded: boolean;
            /** @description Continuation fields your text did not state (no "Current task:", "Completed:", "Pending:", "Key decisions:" or "Relevant files:" line), so they were carried over from the version you replaced and added to its `## Continuation` block. Empty when you stated them all. To clear a field, state it as none, e.g. "Current task: none". */
            continuationCarriedOver: ("currentTask" | "completedSteps" | "pendingSteps" | "keyDecisions" | "relevantFiles")[];
        };
        /**
         * @description A summary written by hand. It becomes a new version, and the next background update builds on it.
         * @example {
         *       "baseVersion": 3,
         *       "content": "## Previously in This Session\n1. Decided to keep one pg.Pool per process (2026-11-22 13:20Z, ~2k tokens)\n\n## Yesterday\n\n## This Week\n"
         *     }
         */
        PutSummaryRequest: {
            /** @description The new summary document (markdown: "## Previously in This Session", "## Yesterday", "## This Week", "## Continuation"). Items may keep their `<!-- … -->` comments from GET; lines without one take the time of the newest dated item (the update's time when none has one). Continuation fields it does not state are carried over from the version it replaces (see continuationCarriedOver). Must fit the session's summaryBudget. */
            content: string;
            /** @description The version you read (compare-and-set): when another version was written since, the request fails with 409 and writes nothing. Omitted: the current version at the time of the write. */
            baseVersion?: number;
        };
        /**
         * @example {
         *       "sessionId": "agent-run-42",
         *       "queued": "new",
         *       "priority": "high",
         *       "evictedAwaitingSummary": 6
         *     }
         */
        SummaryRefresh: {
            /** @description The session. */
            sessionId: string;
            /**
             * @description new: an entry was queued; merged: the pending entry was raised to high priority.
             * @enum {string}
             */
            queued: "new" | "merged";
            /**
             * @description Refreshes are queued at high priority.
             * @constant
             */
            priority: "high";
            /** @description Evicted messages the update will fold in. */
            evictedAwaitingSummary: number;
        };
        /**
         * @description A session's settings; omitted fields keep their value (or the default for a new session).
         * @example {
         *       "format": "openai",
         *       "model": "gpt-4o",
         *       "windowMessages": 20,
         *       "windowTokens": 16000,
         *       "summaryBudget": 10000,
         *       "batchSize": 4,
         *       "mode": "rules"
         *     }
         */
        SessionSettingsRequest: {
            /** @description Seqs (GET /sessions/:id/messages) of messages GET /context always sends verbatim, with their tool pairs, even once folded into the summary. Checked on every /context: what its budget cannot hold is a 422 `contract_unkept`. null removes the pins. */
            pin?: number[] | null;
            /** @description Strings GET /context and POST /compact (with this sessionId) must keep; a string not in the conversation yet is listed in `contract.absent`, not an error. null removes them. */
            preserve?: string[] | null;
            /** @description What the session's compactions give room to (see POST /compact `focus`). null removes it. */
            focus?: string | null;
            thinking?: {
                /** @description Assistant turns (counted from the end) whose reasoning stays; `all` keeps every one; 0 drops all but the turn in progress. */
                keep: number | "all";
            } | null;
            trigger?: {
                /**
                 * @description `auto` (default): GET /context and the proxy compact past the threshold. `manual`: only POST /compact (or the proxy's `x-compactd-compact: now`) compacts. `off`: nothing compacts this session, POST /compact with its id included (a 409).
                 * @enum {string}
                 */
                mode: "off" | "manual" | "auto";
                /** @description `auto` compacts past this many tokens (a number ≥ 1) or this share of the model's window (a number < 1). Default: the budget (GET /context) or the model's threshold (the proxy). */
                threshold?: number;
                /** @description Never compact automatically while the last assistant message has tool calls without results. */
                notMidTurn?: boolean;
            } | null;
            /**
             * @description Format of the session's messages (openai, anthropic, ai-sdk). Set by the first append when omitted; it cannot change once messages are stored.
             * @enum {string}
             */
            format?: "openai" | "anthropic" | "ai-sdk" | "responses";
            /** @description Model the session talks to: sets token counting and the default /context budget. Default: DEFAULT_MODEL. */
            model?: string;
            /** @description The recent window keeps at most this many messages (system messages excepted). Default 20. */
            windowMessages?: number;
            /** @description ...and at most this many tokens. Default 16000. */
            windowTokens?: number;
            /** @description Hard limit of the rolling summary, in tokens: enforced even when a summarizer overshoots. Default 10000. */
            summaryBudget?: number;
            /** @description Evicted exchanges that trigger a background summary update (seed 000's BATCH_SIZE). Default 4. */
            batchSize?: number;
            /**
             * @description `rules`: offline summary (default). `llm`: the configured summarizer writes it with seed 000's background-agent prompt, falling back to rules on any failure.
             * @enum {string}
             */
            mode?: "rules" | "llm";
            /** @description System prompt sent first by GET /context (a string, or Anthropic text blocks). null removes it. */
            system?: (string | ({
                /** @constant */
                type: "text";
                text: string;
            } & {
                [key: string]: unknown;
            })[]) | null;
            summarizer?: {
                /**
                 * @description Summarizer provider; it must be configured on the server (its API key set).
                 * @enum {string}
                 */
                provider: "openai" | "anthropic";
                /** @description One of the models the server allows for the provider. Default: the first one. */
                model?: string;
            } | null;
        };
        /**
         * @example {
         *       "id": "agent-run-42",
         *       "settings": {
         *         "format": "openai",
         *         "windowMessages": 20,
         *         "windowTokens": 16000,
         *         "summaryBudget": 10000,
         *         "batchSize": 4,
         *         "mode": "rules"
         *       },
         *       "messageCount": 58,
         *       "windowMessages": 20,
         *       "windowTokens": 9120,
         *       "systemMessages": 1,
         *       "evictedAwaitingSummary": 6,
         *       "summarizedMessages": 31,
         *       "summary": {
         *         "version": 3,
         *         "tokens": 812,
         *         "updatedAt": "2026-11-22T13:23:20.601Z",
         *         "source": "background"
         *       },
         *       "update": {
         *         "status": "pending"
         *       },
         *       "createdAt": "2026-11-22T12:01:09.114Z",
         *       "updatedAt": "2026-11-22T13:24:02.930Z"
         *     }
         */
        Session: {
            /** @description The session id. */
            id: string;
            /** @description The session's settings. */
            settings: {
                /**
                 * @description Format of the stored messages.
                 * @enum {string}
                 */
                format?: "openai" | "anthropic" | "ai-sdk" | "responses";
                /** @description Model of the session. */
                model?: string;
                /** @description System prompt, when set. */
                system?: unknown;
                /** @description Window size in messages. */
                windowMessages: number;
                /** @description Window size in tokens. */
                windowTokens: number;
                /** @description Summary budget in tokens. */
                summaryBudget: number;
                /** @description Evicted exchanges per background update. */
                batchSize: number;
                /**
                 * @description Summary mode.
                 * @enum {string}
                 */
                mode: "rules" | "llm";
                /** @description Summarizer of llm mode. */
                summarizer?: {
                    provider: string;
                    model?: string;
                };
                /** @description Pinned message seqs. */
                pin?: number[];
                /** @description Strings every compaction keeps. */
                preserve?: string[];
                /** @description What the compactions give room to. */
                focus?: string;
                /** @description The thinking policy. */
                thinking?: {
                    keep: number | "all";
                };
                /** @description When automatic compaction happens. */
                trigger?: {
                    /** @enum {string} */
                    mode: "off" | "manual" | "auto";
                    threshold?: number;
                    notMidTurn?: boolean;
                };
            };
            /** @description Messages appended so far. */
            messageCount: number;
            /** @description Messages in the recent window (system messages excepted). */
            windowMessages: number;
            /** @description Tokens of the recent window. */
            windowTokens: number;
            /** @description System/developer messages, always kept. */
            systemMessages: number;
            /** @description Messages that left the window and are not yet in the summary. */
            evictedAwaitingSummary: number;
            /** @description Messages folded into the summary. */
            summarizedMessages: number;
            /** @description The current summary version, if any. */
            summary: {
                version: number;
                tokens: number;
                updatedAt: string;
                source: string;
            } | null;
            /** @description The queued background update, if any. */
            update: {
                /**
                 * @description pending: queued; running: a worker holds it; failed: gave up after MAX_RETRIES.
                 * @enum {string}
                 */
                status: "pending" | "running" | "failed";
            } | null;
            /** @description ISO 8601. */
            createdAt: string;
            /** @description ISO 8601: last settings change or append. */
            updatedAt: string;
        };
        /**
         * @description Messages to append to the session.
         * @example {
         *       "messages": [
         *         {
         *           "role": "user",
         *           "content": "Fix the failing test in src/db.ts",
         *           "timestamp": "2026-11-22T13:20:00Z"
         *         },
         *         {
         *           "role": "assistant",
         *           "content": null,
         *           "tool_calls": [
         *             {
         *               "id": "call_1",
         *               "type": "function",
         *               "function": {
         *                 "name": "bash",
         *                 "arguments": "{\"cmd\":\"npm test\"}"
         *               }
         *             }
         *           ]
         *         },
         *         {
         *           "role": "tool",
         *           "tool_call_id": "call_1",
         *           "content": "FAIL test/db.test.ts\nError: Called end on pool more than once"
         *         },
         *         {
         *           "role": "assistant",
         *           "content": "The pool is closed twice; removing the second pool.end() in src/db.ts."
         *         }
         *       ]
         *     }
         */
        AppendMessagesRequest: {
            /** @description The exchange(s) to append, oldest first, in the session's format. A `timestamp` (or `createdAt`) on a message dates it for aging; otherwise the append time does. */
            messages: unknown[];
            /**
             * @description Message format. Detected automatically when omitted; a plain user/assistant string array is read as openai (identical in every format).
             * @enum {string}
             */
            format?: "openai" | "anthropic" | "ai-sdk" | "responses";
            /** @description Anthropic-style top-level system prompt (a string or text blocks); stored as the session's system prompt. */
            system?: string | ({
                /** @constant */
                type: "text";
                text: string;
            } & {
                [key: string]: unknown;
            })[];
        };
        /**
         * @example {
         *       "sessionId": "agent-run-42",
         *       "appended": 4,
         *       "firstSeq": 55,
         *       "lastSeq": 58,
         *       "messageCount": 58,
         *       "windowMessages": 20,
         *       "windowTokens": 9120,
         *       "evicted": 4,
         *       "evictedAwaitingSummary": 10,
         *       "evictedExchangesAwaitingSummary": 4,
         *       "updateQueued": true
         *     }
         */
        AppendMessagesResponse: {
            /** @description The session. */
            sessionId: string;
            /** @description Messages appended by this request. */
            appended: number;
            /** @description Sequence number of the first appended message. */
            firstSeq: number | null;
            /** @description Sequence number of the last appended message. */
            lastSeq: number | null;
            /** @description Messages in the session. */
            messageCount: number;
            /** @description Messages in the recent window now. */
            windowMessages: number;
            /** @description Tokens of the recent window now. */
            windowTokens: number;
            /** @description Messages this request pushed out of the window. */
            evicted: number;
            /** @description Evicted messages not yet folded into the summary. */
            evictedAwaitingSummary: number;
            /** @description The same, in exchanges: an update is queued once it reaches batchSize. */
            evictedExchangesAwaitingSummary: number;
            /** @description True when this request queued a background summary update. */
            updateQueued: boolean;
            /** @description When messages were evicted: what of them the archive stored (searchable with GET /sessions/{id}/search). */
            archive?: components["schemas"]["ArchiveReport"];
        };
        /**
         * @example {
         *       "sessionId": "agent-run-42",
         *       "format": "openai",
         *       "model": "gpt-4o",
         *       "budget": 8000,
         *       "tokens": 3120,
         *       "compacted": false,
         *       "strategy": "none",
         *       "summaryVersion": 3,
         *       "stale": false,
         *       "messages": [
         *         {
         *           "role": "system",
         *           "content": "You are a coding agent."
         *         },
         *         {
         *           "role": "system",
         *           "content": "Summary of the earlier part of this session (rolling summary, version 3):\n\n## Previously in This Session\n1. …"
         *         },
         *         {
         *           "role": "user",
         *           "content": "Now add a --limit option."
         *         }
         *       ]
         *     }
         */
        SessionContext: {
            /** @description The session. */
            sessionId: string;
            /**
             * @description Format of `messages` (and `system`).
             * @enum {string}
             */
            format: "openai" | "anthropic" | "ai-sdk" | "responses";
            /** @description Model the tokens were counted for. */
            model: string;
            /** @description The budget the context fits. */
            budget: number;
            /** @description Tokens of the returned context. */
            tokens: number;
            /** @description True when the compaction engine had to trim it to the budget. */
            compacted: boolean;
            /** @description What trimmed it: none, or an offline strategy (mask, rules, truncate). */
            strategy: string;
            /** @description The summary version included (0: none yet). */
            summaryVersion: number;
            /** @description True when evicted messages were not yet in the summary: they are included verbatim (or compacted) instead, so nothing is lost. */
            stale: boolean;
            /** @description Why the context was not compacted though it is over the budget: the session's trigger (mode, threshold, notMidTurn). */
            reason?: string;
            /** @description With the session's `pin` or `preserve`: what the contract checked (a 200 means all of it held). */
            contract?: {
                /** @description Seqs of the pinned messages, each checked present (byte for byte in the session's format). */
                pinned: number[];
                /** @description Preserved strings, each checked present. */
                preserved: string[];
                /** @description Preserved strings the session does not hold (yet): nothing to keep. */
                absent: string[];
            };
            /** @description Ready to send: system messages, the summary, messages awaiting summary, then the recent window. Valid for the provider (tool calls keep their results). */
            messages: unknown[];
            /** @description Anthropic: the top-level system prompt (system messages and the summary). */
            system?: unknown;
        };
        /**
         * @example {
         *       "sessionId": "agent-run-42",
         *       "version": 3,
         *       "updatedAt": "2026-11-22T13:23:20.601Z",
         *       "stale": false,
         *       "degraded": false,
         *       "currentTask": "Fix the failing test in src/db.ts",
         *       "completedSteps": [
         *         "Fix the failing test in src/db.ts"
         *       ],
         *       "pendingSteps": [],
         *       "keyDecisions": [],
         *       "relevantFiles": [
         *         "src/db.ts"
         *       ],
         *       "prompt": "[Previous Session Context]\nCurrent task: Fix the failing test in src/db.ts\nCompleted: Fix the failing test in src/db.ts\nPending: \nKey decisions: \nRelevant files: src/db.ts"
         *     }
         */
        SessionContinuation: {
            /** @description The session. */
            sessionId: string;
            /** @description Summary version it was read from. */
            version: number;
            /** @description When that version was written. */
            updatedAt: string | null;
            /** @description True when evicted messages are not folded in yet. */
            stale: boolean;
            /** @description True when the database could not be read and this comes from the last summary this process saw. */
            degraded: boolean;
            /** @description The task being worked on (the latest meaningful request). */
            currentTask: string;
            /** @description Steps already done. */
            completedSteps: string[];
            /** @description Steps remaining. */
            pendingSteps: string[];
            /** @description Decisions made. */
            keyDecisions: string[];
            /** @description Files being worked on, most recent first. */
            relevantFiles: string[];
            /** @description The same as seed 003's `[Previous Session Context]` block, ready to inject. */
            prompt: string;
        };
        /**
         * @example {
         *       "items": [
         *         {
         *           "sessionId": "agent-run-42",
         *           "checkpointNum": 3,
         *           "round": 3,
         *           "strategy": "rules",
         *           "fromMessageIndex": 2,
         *           "toMessageIndex": 13,
         *           "messagesCompressed": 12,
         *           "summary": "## Session Summary (Compaction Round 3)\n\n### Original Task\nFix the failing test in src/db.ts\n…",
         *           "keyFacts": {
         *             "currentTask": "Fix the failing test in src/db.ts",
         *             "completedSteps": [
         *               "edited test/db.test.ts: removed `afterEach(() => close())`",
         *               "ran npm test -- test/db.test.ts (ok)"
         *             ],
         *             "pendingSteps": [],
         *             "keyDecisions": [],
         *             "relevantFiles": [
         *               "test/db.test.ts",
         *               "src/db.ts",
         *               "src/pool.ts",
         *               "src/config.ts"
         *             ],
         *             "errors": [
         *               "npm test -- test/db.test.ts: Error: Called end on pool more than once (resolved)"
         *             ],
         *             "userRequests": []
         *           },
         *           "originalTokens": 7124,
         *           "compressedTokens": 422,
         *           "compressionRatio": 16.88,
         *           "summaryCostUsd": 0,
         *           "targetTokens": 1500,
         *           "model": "gpt-4o",
         *           "durationMs": 63,
         *           "summaryTokens": 308,
         *           "foldedFrom": null,
         *           "createdAt": "2026-11-22T13:23:20.601Z"
         *         }
         *       ],
         *       "nextCursor": "Y3A6Mw"
         *     }
         */
        CheckpointPage: {
            /** @description Checkpoints, newest (highest number) first. */
            items: components["schemas"]["Checkpoint"][];
            /** @description Pass as `cursor` for the next (older) page; null on the last page. */
            nextCursor: string | null;
        };
        /**
         * @example {
         *       "sessionId": "agent-run-42",
         *       "checkpoints": 2,
         *       "tokensSaved": 15817,
         *       "totalSummaryCostUsd": 0.00153225,
         *       "averageCompressionRatio": 3.85,
         *       "totalOriginalTokens": 21372,
         *       "totalCompressedTokens": 5555,
         *       "breaker": {
         *         "state": "closed",
         *         "recent": []
         *       }
         *     }
         */
        SessionStats: {
            /** @description The session. */
            sessionId: string;
            /** @description Checkpoints stored (after folding). */
            checkpoints: number;
            /** @description Sum of originalTokens − compressedTokens over the checkpoints. */
            tokensSaved: number;
            /** @description Sum of summaryCostUsd. */
            totalSummaryCostUsd: number;
            /** @description Token-weighted: sum(originalTokens) / sum(compressedTokens) (unchanged by folding). */
            averageCompressionRatio: number;
            /** @description Sum of originalTokens. */
            totalOriginalTokens: number;
            /** @description Sum of compressedTokens. */
            totalCompressedTokens: number;
            /** @description The session's compaction circuit breaker (BREAKER_* settings; docs/api.md "Circuit breaker"). */
            breaker: components["schemas"]["BreakerStatus"];
        };
        BreakerReset: {
            sessionId: string;
            /** @description The session's compaction circuit breaker (BREAKER_* settings; docs/api.md "Circuit breaker"). */
            breaker: components["schemas"]["BreakerStatus"];
        };
        /**
         * @example {
         *       "items": [
         *         {
         *           "id": "agent-run-42",
         *           "kind": "both",
         *           "lastActivity": "2026-11-22T13:24:02.930Z",
         *           "messageCount": 58,
         *           "windowMessages": 20,
         *           "windowTokens": 9120,
         *           "windowLimit": {
         *             "messages": 20,
         *             "tokens": 16000
         *           },
         *           "summaryVersion": 3,
         *           "summaryTokens": 812,
         *           "checkpoints": 2,
         *           "tokensSaved": 15817,
         *           "update": null,
         *           "updateFailures": 0
         *         }
         *       ],
         *       "nextCursor": null,
         *       "total": 1
         *     }
         */
        SessionList: {
            items: {
                /** @description The session id (or the sessionId given to POST /compact). */
                id: string;
                /**
                 * @description `session`: a session with a rolling summary; `series`: only compactions stored with POST /compact and a sessionId; `both`.
                 * @enum {string}
                 */
                kind: "session" | "series" | "both";
                /** @description ISO 8601: the latest append, settings change, summary version or checkpoint. */
                lastActivity: string;
                /** @description Messages appended (0 for a series). */
                messageCount: number;
                /** @description Messages in the recent window now (system messages excepted). */
                windowMessages: number;
                /** @description Tokens of the recent window now. */
                windowTokens: number;
                /** @description The session's window size (null for a series). */
                windowLimit: {
                    messages: number;
                    tokens: number;
                } | null;
                /** @description Current rolling-summary version (0: none). */
                summaryVersion: number;
                /** @description Tokens of the current summary. */
                summaryTokens: number;
                /** @description Checkpoints stored (after folding). */
                checkpoints: number;
                /** @description Sum of originalTokens − compressedTokens over the checkpoints. */
                tokensSaved: number;
                /** @description The queued background summary update, if any. */
                update: {
                    /**
                     * @description pending: queued; running: a worker holds it; failed: gave up after MAX_RETRIES.
                     * @enum {string}
                     */
                    status: "pending" | "running" | "failed";
                    /** @description Attempts so far. */
                    attempts: number;
                    /** @description The last attempt's error, when it failed. */
                    lastError: string | null;
                } | null;
                /** @description Failed attempts of the queued update (0 when none failed). */
                updateFailures: number;
            }[];
            /** @description Pass as `cursor` (with the same q, sort and order) for the next page; null on the last page. */
            nextCursor: string | null;
            /** @description Rows matching `q`, on every page. */
            total: number;
        };
        /**
         * @example {
         *       "items": [
         *         {
         *           "version": 3,
         *           "tokens": 812,
         *           "updatedAt": "2026-11-22T13:23:20.601Z",
         *           "source": "background",
         *           "writtenBy": "background",
         *           "mode": "rules",
         *           "foldedMessages": 6
         *         }
         *       ],
         *       "nextCursor": null
         *     }
         */
        SummaryVersionPage: {
            items: {
                /** @description The version (1, 2, ...). */
                version: number;
                /** @description Tokens of the version. */
                tokens: number;
                /** @description ISO 8601: when it was written. */
                updatedAt: string;
                /**
                 * @description As GET /summary reports it.
                 * @enum {string}
                 */
                source: "background" | "manual";
                /**
                 * @description `background`: an update that folded evicted messages in; `aging`: the daily re-aging (nothing new folded); `manual`: PUT /summary.
                 * @enum {string}
                 */
                writtenBy: "background" | "aging" | "manual";
                /** @description Mode of the background update (rules, llm, llm-fallback); null for a manual version or when the update's record was purged (RUN_HISTORY_MS). */
                mode: string | null;
                /** @description Messages the update folded in; null as for mode. */
                foldedMessages: number | null;
            }[];
            /** @description Pass as `cursor` for the next (older) page; null on the last page. */
            nextCursor: string | null;
        };
        SummaryVersion: {
            /** @description The session. */
            sessionId: string;
            /** @description The version (1, 2, ...). */
            version: number;
            /** @description Tokens of the version. */
            tokens: number;
            /** @description ISO 8601: when it was written. */
            updatedAt: string;
            /**
             * @description As GET /summary reports it.
             * @enum {string}
             */
            source: "background" | "manual";
            /**
             * @description `background`: an update that folded evicted messages in; `aging`: the daily re-aging (nothing new folded); `manual`: PUT /summary.
             * @enum {string}
             */
            writtenBy: "background" | "aging" | "manual";
            /** @description Mode of the background update (rules, llm, llm-fallback); null for a manual version or when the update's record was purged (RUN_HISTORY_MS). */
            mode: string | null;
            /** @description Messages the update folded in; null as for mode. */
            foldedMessages: number | null;
            /** @description The document as stored, with the items' `<!-- … -->` comments. */
            content: string;
            /** @description The same without the comments. */
            text: string;
        };
        SessionMessagePage: {
            /** @description The session. */
            sessionId: string;
            /** @description The session's message format. */
            format: ("openai" | "anthropic" | "ai-sdk" | "responses") | null;
            items: {
                /** @description Position in the session (1, 2, ...). */
                seq: number;
                /** @description The message's role. */
                role: string;
                /** @description Its tokens, counted for the session's model when appended. */
                tokens: number;
                /**
                 * @description Where it is now.
                 * @enum {string}
                 */
                status: "window" | "evicted" | "summarized";
                /** @description ISO 8601: its own timestamp, else when it was appended. */
                messageAt: string;
                /** @description The message as appended. */
                message: unknown;
            }[];
            /** @description Pass as `cursor` for the next (newer) page; null on the last page. */
            nextCursor: string | null;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export type operations = Record<string, never>;
