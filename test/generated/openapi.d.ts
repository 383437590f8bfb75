/** Generated from the route schemas by `npm run openapi` (scripts/generate-openapi.ts). Do not edit. */

export interface paths {
    "/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Sessions, newest first, a page at a time: pass a reply's `next` as `before` for the next page */
        get: operations["listSessions"];
        put?: never;
        /** Create a session */
        post: operations["createSession"];
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
        /** Read a session with its status and counts */
        get: operations["getSession"];
        put?: never;
        post?: never;
        /** Delete a session with its records, events, approvals and artifact files; its event streams end. Refused while it has work going on: abort it first */
        delete: operations["deleteSession"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sessions/{id}/abort": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Abort the running turn: running calls end cancelled, pending approvals resolve as abort, queued and open schedules end cancelled */
        post: operations["abortSession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sessions/{id}/history": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every stored tool record in order, with the exact modelContent the model received */
        get: operations["getHistory"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/schedules": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Accept the tool calls of one model reply; an unknown session is created with defaults
         * @description Schedules of a session run one after another. The schedules waiting to start are bounded, per session (TOOLEXEC_MAX_QUEUED_SCHEDULES_PER_SESSION, default 100) and for the whole server (TOOLEXEC_MAX_QUEUED_SCHEDULES, default 5000): over a bound the reply is 429 `API_ERR_TOO_MANY_SCHEDULES` with `Retry-After` (seconds), and nothing of the schedule is stored.
         */
        post: operations["createSchedule"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/schedules/{id}/calls": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Add a streamed call to an open schedule (1000 calls at most, as when posted at once); an eligible one starts at once (R11) */
        post: operations["addScheduleCall"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/schedules/{id}/close": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Close an open schedule: the calls not yet started are grouped and run */
        post: operations["closeSchedule"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/schedules/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A schedule's status and every call's record; ?wait=N holds the reply up to N seconds until it ends */
        get: operations["getSchedule"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/permissions/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Answer a permission request; the same answer again is accepted, a different one is a 409 */
        post: operations["answerPermission"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/permissions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Pending permission requests across sessions, or of one session */
        get: operations["listPermissions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/permissions/rules": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Allow rules granted per workspace by approvals with scope "project" */
        get: operations["listProjectRules"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/permissions/rules/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Remove a project grant; later requests it covered ask again */
        delete: operations["deleteProjectRule"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sessions/{id}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The session's events as Server-Sent Events: id is the session's sequence number; resume with Last-Event-ID or ?after=N
         * @description Each event is one frame: `id:` the session's sequence number (1, 2, 3, ... with no gaps), `event:` its type, `data:` one JSON line `{type, sessionId, seq, at, ...}`. Stored events after the resume point are replayed, then live ones follow. A resume point past the last stored event is a 400 (no such id was sent by this session: it was deleted and created again, say). A heartbeat comment comes at least every 15 s.
         */
        get: operations["streamEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/artifacts/{sessionId}/{artifactId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** An artifact's bytes with its media type; supports a single Range */
        get: operations["getArtifact"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/tools": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every tool with its description, input schema, flags, timeout policy and result budget */
        get: operations["listTools"];
        put?: never;
        /** Register a client-defined HTTP tool, kept across restarts: each call is POSTed to its url as {callId, sessionId, input} and answered with {content, isError?} */
        post: operations["addHttpTool"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/tools/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Remove a client-defined HTTP tool for good (one from the config file comes back at the next start); built-in and MCP tools cannot be removed. Calls already running finish. */
        delete: operations["deleteHttpTool"];
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
        /** Liveness, whether Bash commands are confined, and whether the database answers: 503 API_ERR_STORAGE_CORRUPT once it showed damage */
        get: operations["health"];
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
        CallRecord: {
            id: string;
            scheduleId: string;
            name: string;
            /** @description The input as the model gave it, whole: the one copy of its large texts (a Write's content) in this reply */
            input: unknown;
            /** @description Once the call started: what resolving the input changed (R13), not a second copy of it. For an object input, only the top-level fields whose value differs from `input` or that it added (`{}` when nothing changed); the fields named in `resolvedInputRemoved` were dropped. The input the tool ran with is `input` without those, with these fields laid over it. The PermissionRequested and ToolCallStarted events carry it whole. */
            resolvedInput?: unknown;
            /** @description Top-level fields of `input` that the resolved input no longer has */
            resolvedInputRemoved?: string[];
            flags?: components["schemas"]["ToolFlags"];
            status: components["schemas"]["CallRecordStatus"];
            startedAt?: string;
            completedAt?: string;
            modelContent?: components["schemas"]["ModelContent"];
            result?: components["schemas"]["ToolExecutionResult"];
        };
        CallRecordStatus: "pending" | "awaiting_permission" | "running" | components["schemas"]["CallStatus"];
        CallStatus: "succeeded" | "failed" | "denied" | "cancelled" | "timed_out" | "interrupted";
        CreateScheduleBody: {
            sessionId: string;
            turnId?: string;
            calls: components["schemas"]["ScheduleCallInput"][];
            open?: boolean;
        };
        CreateSessionBody: {
            id?: string;
            workspace?: string;
            permissionMode?: components["schemas"]["PermissionMode"];
            interactive?: boolean;
            permissionTimeoutMs?: number;
            sandbox?: components["schemas"]["SandboxSettings"];
        };
        DecidedBy: "client" | "hook" | "rule" | "broker" | "timeout" | "abort";
        Display: {
            /** @enum {string} */
            kind: "bash_output";
            command: string;
            output: string;
            exitCode: number | null;
            truncated: boolean;
            originalBytes: number;
            persistedPath?: string;
            confined?: boolean;
        } | {
            /** @enum {string} */
            kind: "file_diff";
            filePath: string;
            operation: "create" | "update";
            hunks: {
                oldStart: number;
                oldLines: number;
                newStart: number;
                newLines: number;
                /** @description Each line starts with ' ', '+' or '-'. A line is cut after 1,000 characters (the display then says `truncated`): a Write's whole text is the call's `input.content`, and the file is in the workspace. */
                lines: string[];
            }[];
            additions: number;
            deletions: number;
            /** @description Hunks, lines or the text of a line were left out: at most 8 hunks, 160 lines, 1,000 characters a line */
            truncated: boolean;
        } | {
            /** @enum {string} */
            kind: "mcp_tool";
            server: string;
            tool: string;
            text: string;
            isError: boolean;
            truncated: boolean;
        } | {
            /** @enum {string} */
            kind: "cua";
            action: string;
            screenshotUri?: string;
            x?: number;
            y?: number;
        } | {
            /** @enum {string} */
            kind: "node_repl_screenshot";
            screenshotUri: string;
            width?: number;
            height?: number;
        } | {
            /** @enum {string} */
            kind: "subagent_run";
            agentId: string;
            description: string;
            status: string;
            summary?: string;
        } | {
            /** @enum {string} */
            kind: "subagent_batch";
            agents: {
                agentId: string;
                description: string;
                status: string;
            }[];
        } | {
            /** @enum {string} */
            kind: "background_task";
            taskId: string;
            command?: string;
            status: string;
            confined?: boolean;
        } | {
            /** @enum {string} */
            kind: "background_task_output";
            taskId: string;
            status: string;
            output: string;
            truncated: boolean;
        } | {
            /** @enum {string} */
            kind: "workflow_run";
            runId: string;
            workflow: string;
            status: string;
        } | {
            /** @enum {string} */
            kind: "workflow_step";
            runId: string;
            step: string;
            status: string;
        } | {
            /** @enum {string} */
            kind: "workflow_saved";
            workflow: string;
            path: string;
        } | {
            /** @enum {string} */
            kind: "workflow_list";
            workflows: {
                name: string;
                description?: string;
            }[];
        } | {
            /** @enum {string} */
            kind: "workflow_eval";
            snippet: string;
            result: string;
            truncated: boolean;
        } | {
            /** @enum {string} */
            kind: "workflow_schedule";
            scheduleId: string;
            cron?: string;
            action: "created" | "updated" | "deleted";
        } | {
            /** @enum {string} */
            kind: "model_list";
            models: {
                id: string;
                provider?: string;
            }[];
        };
        ErrorClass: "not_found" | "validation" | "permission_denied" | "hook_blocked" | "cancelled" | "timeout" | "business" | "exception" | "turn_stop" | "interrupted";
        ErrorReply: {
            error: {
                code: string;
                message: string;
                details?: unknown;
            };
        };
        ErrorStage: "lookup" | "validation" | "resolve_input" | "pre_tool_use" | "permission" | "handler" | "serialization" | "post_tool_use" | "scheduling";
        HistoryEntry: {
            scheduleId: string;
            turnId: string;
            callId: string;
            toolName: string;
            /** @description The input as the model gave it, whole; the schedule's call records say what resolving it changed (`resolvedInput`) */
            input: unknown;
            status: components["schemas"]["CallRecordStatus"];
            isError: boolean;
            modelContent: components["schemas"]["ModelContent"];
            result: components["schemas"]["ToolExecutionResult"];
        };
        HttpToolDefinition: {
            /** @description Letters, digits, `_` and `-`; must not start with `mcp__` */
            name: string;
            description: string;
            /** @description JSON Schema of the input; its top level describes an object */
            inputSchema: {
                /** @enum {string} */
                type: "object";
            } & {
                [key: string]: unknown;
            };
            /** @description Default false */
            readOnly?: boolean;
            /** @description Default false */
            destructive?: boolean;
            /** @description Default: readOnly */
            concurrentSafe?: boolean;
            sideEffectScope?: components["schemas"]["SideEffectScope"];
            timeout?: components["schemas"]["TimeoutPolicy"];
            resultBudget?: components["schemas"]["ResultBudget"];
            /** @description http(s) URL the call is POSTed to as {callId, sessionId, input} */
            url: string;
            /** @description Sent with every call */
            headers?: {
                [key: string]: string;
            };
        };
        ModelContent: string | components["schemas"]["ModelContentBlock"][];
        ModelContentBlock: {
            /** @enum {string} */
            type: "text";
            text: string;
        } | {
            /** @enum {string} */
            type: "image";
            mediaType: string;
            data?: string;
            artifactUri?: string;
            path?: string;
        };
        PermissionAnswerBody: {
            decision: "allow" | "deny";
            scope?: "once" | "session" | "project";
            message?: string;
            sessionId?: string;
        };
        PermissionMode: "default" | "acceptEdits" | "plan" | "dontAsk" | "bypassPermissions";
        PermissionRequestRecord: {
            id: string;
            sessionId: string;
            callId: string;
            toolName: string;
            input: unknown;
            preview?: unknown;
            riskLevel: "low" | "medium" | "high";
            reason: string;
            suggestedRule?: string;
            status: "pending" | "allow" | "deny";
            decidedBy?: components["schemas"]["DecidedBy"];
            message?: string;
            scope?: string;
            createdAt: string;
            decidedAt?: string;
        };
        ProjectRule: {
            id: string;
            workspace: string;
            rule: string;
            createdAt: string;
        };
        ResultBudget: {
            maxModelBytes: number;
            maxInlineBytes: number;
            strategy: "artifact" | "truncate";
            previewDirection: "head" | "tail";
        };
        SandboxSettings: {
            /** @description More paths a command may read; a missing one is skipped */
            readOnlyPaths?: string[];
            /** @description More paths a command may write once allowed (read-only for one run unasked as read-only) */
            writablePaths?: string[];
            /** @description Network access for commands (default false) */
            network?: boolean;
        };
        Schedule: {
            scheduleId: string;
            sessionId: string;
            turnId: string;
            status: components["schemas"]["ScheduleStatus"];
            groups: string[][];
            calls: components["schemas"]["CallRecord"][];
        };
        ScheduleAccepted: {
            scheduleId: string;
            sessionId: string;
            turnId: string;
            status: components["schemas"]["ScheduleStatus"];
            groups: string[][];
            calls: {
                id: string;
                name: string;
                flags: components["schemas"]["ToolFlags"] | null;
                dispatched?: boolean;
            }[];
        };
        ScheduleCallInput: {
            id: string;
            name: string;
            input: unknown;
            dependsOn?: string[];
        };
        ScheduleStatus: "open" | "queued" | "running" | "completed" | "stopped" | "cancelled";
        Session: {
            id: string;
            workspace: string;
            permissionMode: components["schemas"]["PermissionMode"];
            interactive: boolean;
            permissionTimeoutMs: number | null;
            sandbox?: components["schemas"]["SandboxSettings"];
            createdAt: string;
            status: "idle" | "running" | "awaiting_permission";
            counts: {
                schedules: number;
                calls: number;
                pendingPermissions: number;
            };
            lastEventId: number;
        };
        SessionList: {
            sessions: components["schemas"]["Session"][];
            /** @description Present when there are older sessions: pass it as `before` */
            next?: string;
        };
        SideEffectScope: "none" | "session" | "workspace" | "network" | "system" | "userInteraction";
        TimeoutPolicy: {
            kind: "none" | "deadline";
            defaultMs?: number;
            maxMs?: number;
            allowCallOverride?: boolean;
            cleanupGraceMs?: number;
        };
        ToolExecutionResult: {
            callId: string;
            toolName: string;
            success: boolean;
            status: components["schemas"]["CallStatus"];
            isError: boolean;
            modelContent: components["schemas"]["ModelContent"];
            output?: unknown;
            display?: components["schemas"]["Display"];
            error?: {
                message: string;
                stage: components["schemas"]["ErrorStage"];
                errorClass: components["schemas"]["ErrorClass"];
                code?: string;
                context?: {
                    [key: string]: unknown;
                };
            };
            control?: {
                turnControl?: {
                    reason: string;
                    /** @enum {boolean} */
                    stopTurnAfterResult: true;
                };
            };
            serialization: {
                truncated: boolean;
                originalBytes: number;
                actualBytes: number;
                strategy: "inline" | "truncate" | "artifact";
                persistedPath?: string;
                artifactUri?: string;
            };
            perf: {
                totalMs: number;
                permissionWaitMs: number;
                queuedMs: number;
            };
            permission: "none" | "approved" | "denied";
            hookContext: string[];
        };
        ToolFlags: {
            readOnly: boolean;
            destructive: boolean;
            concurrentSafe: boolean;
            sideEffectScope: components["schemas"]["SideEffectScope"];
            alwaysAsk: boolean;
            requiresUserInteraction: boolean;
            dependencies: string[];
        };
        ToolInfo: {
            name: string;
            description: string;
            inputSchema: unknown;
            flags: components["schemas"]["ToolFlags"];
            timeout?: components["schemas"]["TimeoutPolicy"];
            resultBudget: components["schemas"]["ResultBudget"];
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    listSessions: {
        parameters: {
            query?: {
                /** @description Sessions per page, 1 to 500 (50 when absent) */
                limit?: string;
                /** @description The `next` of the previous page: sessions created before this one */
                before?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionList"];
                };
            };
            /** @description Bad Request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Missing or wrong bearer token (only when the server runs with TOOLEXEC_TOKEN) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description The Host is not a loopback name: localhost, 127.x.x.x or [::1] (only when the server runs without TOOLEXEC_TOKEN) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Not Found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
        };
    };
    createSession: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateSessionBody"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Session"];
                };
            };
            /** @description Bad Request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Missing or wrong bearer token (only when the server runs with TOOLEXEC_TOKEN) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description The Host is not a loopback name: localhost, 127.x.x.x or [::1] (only when the server runs without TOOLEXEC_TOKEN) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Payload Too Large: a body over 10 MiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Unsupported Media Type: a body that is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Insufficient Storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
        };
    };
    getSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Session"];
                };
            };
            /** @description Bad Request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Missing or wrong bearer token (only when the server runs with TOOLEXEC_TOKEN) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description The Host is not a loopback name: localhost, 127.x.x.x or [::1] (only when the server runs without TOOLEXEC_TOKEN) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Not Found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
        };
    };
    deleteSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Bad Request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Missing or wrong bearer token (only when the server runs with TOOLEXEC_TOKEN) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description The Host is not a loopback name: localhost, 127.x.x.x or [::1] (only when the server runs without TOOLEXEC_TOKEN) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Not Found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Payload Too Large: a body over 10 MiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Unsupported Media Type: a body that is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
        };
    };
    abortSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        sessionId: string;
                        aborted: boolean;
                    };
                };
            };
            /** @description Bad Request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Missing or wrong bearer token (only when the server runs with TOOLEXEC_TOKEN) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description The Host is not a loopback name: localhost, 127.x.x.x or [::1] (only when the server runs without TOOLEXEC_TOKEN) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Not Found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Payload Too Large: a body over 10 MiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Unsupported Media Type: a body that is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
        };
    };
    getHistory: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        sessionId: string;
                        entries: components["schemas"]["HistoryEntry"][];
                    };
                };
            };
            /** @description Bad Request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Missing or wrong bearer token (only when the server runs with TOOLEXEC_TOKEN) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description The Host is not a loopback name: localhost, 127.x.x.x or [::1] (only when the server runs without TOOLEXEC_TOKEN) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Not Found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
        };
    };
    createSchedule: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateScheduleBody"];
            };
        };
        responses: {
            /** @description Accepted */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ScheduleAccepted"];
                };
            };
            /** @description Bad Request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Missing or wrong bearer token (only when the server runs with TOOLEXEC_TOKEN) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description The Host is not a loopback name: localhost, 127.x.x.x or [::1] (only when the server runs without TOOLEXEC_TOKEN) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Payload Too Large: a body over 10 MiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Unsupported Media Type: a body that is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Too Many Requests */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Insufficient Storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
        };
    };
    addScheduleCall: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ScheduleCallInput"];
            };
        };
        responses: {
            /** @description Accepted */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ScheduleAccepted"];
                };
            };
            /** @description Bad Request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Missing or wrong bearer token (only when the server runs with TOOLEXEC_TOKEN) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description The Host is not a loopback name: localhost, 127.x.x.x or [::1] (only when the server runs without TOOLEXEC_TOKEN) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Not Found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Payload Too Large: a body over 10 MiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Unsupported Media Type: a body that is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Insufficient Storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
        };
    };
    closeSchedule: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Accepted */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ScheduleAccepted"];
                };
            };
            /** @description Bad Request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Missing or wrong bearer token (only when the server runs with TOOLEXEC_TOKEN) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description The Host is not a loopback name: localhost, 127.x.x.x or [::1] (only when the server runs without TOOLEXEC_TOKEN) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Not Found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Payload Too Large: a body over 10 MiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Unsupported Media Type: a body that is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
        };
    };
    getSchedule: {
        parameters: {
            query?: {
                wait?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Schedule"];
                };
            };
            /** @description Bad Request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Missing or wrong bearer token (only when the server runs with TOOLEXEC_TOKEN) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description The Host is not a loopback name: localhost, 127.x.x.x or [::1] (only when the server runs without TOOLEXEC_TOKEN) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Not Found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
        };
    };
    answerPermission: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PermissionAnswerBody"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PermissionRequestRecord"];
                };
            };
            /** @description Bad Request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Missing or wrong bearer token (only when the server runs with TOOLEXEC_TOKEN) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description The Host is not a loopback name: localhost, 127.x.x.x or [::1] (only when the server runs without TOOLEXEC_TOKEN) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Not Found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Payload Too Large: a body over 10 MiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Unsupported Media Type: a body that is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Insufficient Storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
        };
    };
    listPermissions: {
        parameters: {
            query?: {
                sessionId?: string;
                status?: "pending";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        requests: components["schemas"]["PermissionRequestRecord"][];
                    };
                };
            };
            /** @description Bad Request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Missing or wrong bearer token (only when the server runs with TOOLEXEC_TOKEN) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description The Host is not a loopback name: localhost, 127.x.x.x or [::1] (only when the server runs without TOOLEXEC_TOKEN) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
        };
    };
    listProjectRules: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        rules: components["schemas"]["ProjectRule"][];
                    };
                };
            };
            /** @description Missing or wrong bearer token (only when the server runs with TOOLEXEC_TOKEN) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description The Host is not a loopback name: localhost, 127.x.x.x or [::1] (only when the server runs without TOOLEXEC_TOKEN) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
        };
    };
    deleteProjectRule: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No Content */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Bad Request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Missing or wrong bearer token (only when the server runs with TOOLEXEC_TOKEN) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description The Host is not a loopback name: localhost, 127.x.x.x or [::1] (only when the server runs without TOOLEXEC_TOKEN) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Not Found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Payload Too Large: a body over 10 MiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Unsupported Media Type: a body that is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
        };
    };
    streamEvents: {
        parameters: {
            query?: {
                after?: string;
            };
            header?: {
                "last-event-id"?: string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The event stream (text/event-stream) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            /** @description Bad Request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Missing or wrong bearer token (only when the server runs with TOOLEXEC_TOKEN) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description The Host is not a loopback name: localhost, 127.x.x.x or [::1] (only when the server runs without TOOLEXEC_TOKEN) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Not Found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
        };
    };
    getArtifact: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                sessionId: string;
                artifactId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The artifact's bytes with its media type */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "*/*": string;
                };
            };
            /** @description The artifact's bytes with its media type */
            206: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "*/*": string;
                };
            };
            /** @description Bad Request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Missing or wrong bearer token (only when the server runs with TOOLEXEC_TOKEN) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description The Host is not a loopback name: localhost, 127.x.x.x or [::1] (only when the server runs without TOOLEXEC_TOKEN) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Not Found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Range Not Satisfiable */
            416: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
        };
    };
    listTools: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        tools: components["schemas"]["ToolInfo"][];
                    };
                };
            };
            /** @description Missing or wrong bearer token (only when the server runs with TOOLEXEC_TOKEN) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description The Host is not a loopback name: localhost, 127.x.x.x or [::1] (only when the server runs without TOOLEXEC_TOKEN) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
        };
    };
    addHttpTool: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["HttpToolDefinition"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ToolInfo"];
                };
            };
            /** @description Bad Request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Missing or wrong bearer token (only when the server runs with TOOLEXEC_TOKEN) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description The Host is not a loopback name: localhost, 127.x.x.x or [::1] (only when the server runs without TOOLEXEC_TOKEN) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Payload Too Large: a body over 10 MiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Unsupported Media Type: a body that is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Insufficient Storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
        };
    };
    deleteHttpTool: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Removed */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Bad Request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Missing or wrong bearer token (only when the server runs with TOOLEXEC_TOKEN) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description The Host is not a loopback name: localhost, 127.x.x.x or [::1] (only when the server runs without TOOLEXEC_TOKEN) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Not Found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Payload Too Large: a body over 10 MiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Unsupported Media Type: a body that is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
        };
    };
    health: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "ok";
                        sandbox: {
                            /** @description Every Bash command runs in the sandbox; when false, only strictly read-only commands run without asking */
                            confined: boolean;
                            mode: "off" | "auto" | "required";
                            /** @description Why commands are not confined */
                            reason?: string;
                        };
                    };
                };
            };
            /** @description The Host is not a loopback name: localhost, 127.x.x.x or [::1] (only when the server runs without TOOLEXEC_TOKEN) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Service Unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
        };
    };
}
