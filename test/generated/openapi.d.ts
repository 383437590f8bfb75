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
        /** Change a session's label: the name the console shows for it (without one, its workspace's folder and start time) */
        patch: operations["updateSession"];
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
         * Accept the tool calls of one model reply, for a session that exists or that `createSession` creates
         * @description An unknown `sessionId` is a 404 `API_ERR_SESSION_NOT_FOUND` and nothing is stored, unless the body asks to create the session with `createSession` (the fields of POST /sessions' body, its workspace among them; `{}` takes the server's defaults). On an existing session a `createSession` whose fields equal the ones the session has is accepted, so a retried request succeeds; one that differs is a 409 `API_ERR_SESSION_DIFFERS`. Schedules of a session run one after another. The schedules waiting to start are bounded, per session (TOOLEXEC_MAX_QUEUED_SCHEDULES_PER_SESSION, default 100) and for the whole server (TOOLEXEC_MAX_QUEUED_SCHEDULES, default 5000): over a bound the reply is 429 `API_ERR_TOO_MANY_SCHEDULES` with `Retry-After` (seconds), and nothing of the schedule is stored.
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
        /**
         * A schedule's status and every call's record; ?wait=N holds the reply up to N seconds until it ends; ?format= gives the results in a model API's shape
         * @description With `format`, the reply is `{scheduleId, sessionId, turnId, status, done, stopTurn, turnControl?}` and, once `done` (every call ended), the results as that API's next request carries them, the text of each byte for byte its `modelContent`: `anthropic`: `message`, the `user` message with one `tool_result` per call (images as base64 image blocks); `openai-chat`: `messages`, one `tool` message per call, then, when calls returned images, one `user` message carrying them as data URLs (a tool message cannot carry an image), each call's introduced by the text `Images returned by tool call <id>:`; `openai-responses`: `input`, one `function_call_output` per call (images as `input_image` data URLs). An image saved as an artifact is read back from it. `stopTurn` is true when a result asks to end the turn (R30): send the results, do not call the model again.
         */
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
        /** Decide a permission request, once: a second decision is a 409, as is one for another input or on a closed request */
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
         * @description Server-Sent Events. Every event is stored before it is sent, and each is one frame:
         *
         *     ```
         *     id: 7
         *     event: ToolCallResult
         *     data: {"type":"ToolCallResult","sessionId":"demo","seq":7,"at":"2026-01-01T00:00:00.000Z","callId":"read-1",...}
         *     ```
         *
         *     - `id:` the session's sequence number, the same as `seq`: 1, 2, 3, ... with no gaps.
         *     - `event:` the event type, the same as `type`: the name to pass to `addEventListener`.
         *     - `data:` one JSON line, a `SessionEvent` (the schema of this reply): the fields of its type and `seq` and `at`.
         *
         *     The event types:
         *
         *     - `ScheduleAccepted`: A schedule was stored; its calls will run in these batches
         *     - `BatchStarted`: A batch of calls started
         *     - `BatchCompleted`: Every call of a batch has its result
         *     - `ToolCallStarted`: A call passed validation, hooks and permission; its handler runs now (the call's timeout starts)
         *     - `PermissionRequested`: A call waits for approval: answer it with POST /permissions/{id}
         *     - `PermissionResolved`: A permission decision for a call: a person, a hook, a rule, a timeout or an abort decided
         *     - `ModelNetworkStatus`: A tool's request to the model moved on; the call's timeout does not run while it waits for admission (R22)
         *     - `ToolCallProgress`: A running call reported progress
         *     - `ToolCallResult`: A call ended (succeeded, failed, denied, cancelled, timed out or interrupted): its one result, with the exact modelContent the model receives
         *     - `HookRunStarted`: A hook started for a call
         *     - `HookRunCompleted`: A hook ended without blocking the call
         *     - `HookRunBlocked`: A hook blocked the call
         *     - `HookRunFailed`: A hook failed; the call goes on unless the hook fails closed
         *     - `ScheduleCompleted`: A schedule ended: every one of its calls has a result
         *     - `BackgroundTaskLost`: A background task was still running when the server that ran it stopped (a crash, or a cluster node that died): found when the session was recovered, it is lost. TaskOutput and TaskStop say so.
         *
         *     Resuming: the stored events after the resume point are sent first, then live ones follow, none lost or doubled at the seam.
         *     The resume point is the last id the client has: the `Last-Event-ID` header (an EventSource sends it when it reconnects), else `?after=N`,
         *     else 0 (the whole history). `Last-Event-ID` wins over `after`. A resume point past the last stored event of the session is a 400
         *     `API_ERR_VALIDATION` (no such id was sent by this session: it was deleted and created again, say); the session's last id is
         *     `lastEventId` in GET /sessions/{id}.
         *
         *     The stream opens with `retry: 2000`: an EventSource waits 2 s before it reconnects.
         *
         *     The stream does not end on its own. A comment line (`:`) comes at least every 15 s when nothing else does. A client that reads
         *     nothing is disconnected once 10,000 frames or 64 MiB of events wait for it; it resumes from the last complete frame it got.
         *     Deleting the session ends its streams.
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
        /**
         * Every tool with its description, input schema, flags, timeout policy and result budget; or, with ?format=, a model API's `tools` parameter
         * @description Without `format`: `{tools}`, every tool as toolexec describes it. With `format`: a bare array, exactly the `tools` parameter of that API (built-in, MCP and HTTP tools alike), input schemas as plain JSON Schema with `type: "object"` at the top and no `$schema` or `$id`.
         */
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
        /** Liveness, whether Bash commands are confined, and whether the database answers: 503 API_ERR_STORAGE_CORRUPT once it showed damage, API_ERR_STORAGE_UNAVAILABLE while PostgreSQL does not answer */
        get: operations["health"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cluster": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The servers sharing this one’s database (a cluster on PostgreSQL): each with its heartbeat and whether it is live */
        get: operations["getCluster"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The keys the caller could have minted (every key for TOOLEXEC_TOKEN), oldest first, revoked ones too; never a secret */
        get: operations["listKeys"];
        put?: never;
        /**
         * Mint an API key: its secret is in this reply only, and never has more than the key minting it
         * @description The key gets a `role` or a list of `scopes`, and may be limited to `sessions` and/or to `workspaces` under given paths (both: the sessions that pass both). A scope, a session, a workspace or an expiry the minting key does not have is a 403 `API_ERR_KEY_TOO_WIDE`; a side of its limits the new key does not name, and its expiry when it names none, are the minting key’s. The secret (`txk_...`) is sent as `Authorization: Bearer`; it is stored only as its SHA-256.
         */
        post: operations["createKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/keys/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke a key: the next request with it is refused, on every server of a cluster. A key the caller could not have minted is a 404 */
        delete: operations["revokeKey"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Who the credential of the request is: its name, role, scopes, limits and expiry, never its secret. Any valid credential may ask */
        get: operations["whoAmI"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/audit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The audit log, oldest first: a page of entries after `after`, filtered by kind, actor, session and time
         * @description Each entry holds the hash of the one before, so an entry edited, removed or reordered is told by `toolexec audit verify`. Pass `next` as `after` for the next page; `next` is null at the end of the log. A key limited to sessions or workspaces reads only the entries of the sessions it sees, so its pages may hold fewer entries than `limit`.
         */
        get: operations["listAudit"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sessions/{id}/links": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Mint a short-lived token for this session and one purpose (watch, or watch and decide), for a console link sent to a phone
         * @description The token works for this session only, with the scopes of its purpose (`watch`: sessions:read and events:read; `decide`: those and approvals:decide), until it expires (15 min by default, at most 24 h, never past the minting key’s expiry) or is revoked. A purpose whose scopes the minting key lacks is a 403 `API_ERR_KEY_TOO_WIDE`. The token is in this reply only; `consolePath` opens the console on the session with it.
         */
        post: operations["createSessionLink"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sessions/{id}/links/{linkId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke a link: the next request with its token is refused, on every server. Only its minter (or the administrator) may; any other link is a 404 */
        delete: operations["revokeSessionLink"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/.well-known/oauth-protected-resource": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** OAuth 2.0 protected resource metadata (RFC 9728): the identity provider whose JWTs this server accepts, and the scopes. 404 when the server accepts none (no TOOLEXEC_JWT_ISSUER) */
        get: operations["getProtectedResourceMetadata"];
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
        /** @description The assistant message's `content` as the Messages API returned it: its `tool_use` blocks become the calls, in order */
        AnthropicAssistantContent: ({
            /** @enum {string} */
            type: "tool_use";
            id: string;
            name: string;
            input: unknown;
        } | {
            /** @description Any block type but `tool_use` */
            type: string;
        })[];
        /** @description format=anthropic: `message` once `done` */
        AnthropicSchedule: {
            scheduleId: string;
            sessionId: string;
            turnId: string;
            status: components["schemas"]["ScheduleStatus"];
            /** @description Every call of the schedule has ended (and it is closed): the format's results are present */
            done: boolean;
            /** @description R30: a result asks to end the turn after it: send the results, then do not call the model again */
            stopTurn: boolean;
            turnControl?: {
                reason: string;
                /** @enum {boolean} */
                stopTurnAfterResult: true;
            };
            message?: components["schemas"]["AnthropicToolResultsMessage"];
        };
        /** @description One entry of the Messages API `tools` parameter */
        AnthropicTool: {
            name: string;
            description: string;
            input_schema: {
                /** @enum {string} */
                type: "object";
                properties?: unknown;
                required?: string[];
            } & {
                [key: string]: unknown;
            };
        };
        AnthropicToolResult: {
            /** @enum {string} */
            type: "tool_result";
            tool_use_id: string;
            content: string | ({
                /** @enum {string} */
                type: "text";
                text: string;
            } | {
                /** @enum {string} */
                type: "image";
                source: {
                    /** @enum {string} */
                    type: "base64";
                    media_type: "image/jpeg" | "image/png" | "image/gif" | "image/webp";
                    data: string;
                };
            })[];
            /** @description R28: a failed call, a tool output that says it is an error, an interrupted Bash */
            is_error: boolean;
        };
        /** @description The `user` message to append: one `tool_result` per call, in call order */
        AnthropicToolResultsMessage: {
            /** @enum {string} */
            role: "user";
            content: components["schemas"]["AnthropicToolResult"][];
        };
        /** @description A key as listed: never its secret, which is kept only as a hash */
        ApiKey: {
            /** @description Names the key in lists, logs and DELETE /keys/{id}; not a secret */
            id: string;
            name: string;
            /** @description The role it was given, or null when it was given a list of scopes */
            role: components["schemas"]["Role"] | null;
            scopes: components["schemas"]["Scope"][];
            /** @description The sessions it is limited to; null when not limited by session */
            sessions: string[] | null;
            /** @description The workspace paths it is limited to; null when not limited by workspace */
            workspaces: string[] | null;
            expiresAt: string | null;
            createdAt: string;
            /** @description The id of the key that minted it, or `admin` for TOOLEXEC_TOKEN */
            createdBy: string;
            revokedAt: string | null;
        };
        ApiKeyList: {
            keys: components["schemas"]["ApiKey"][];
        };
        /** @description A background task was still running when the server that ran it stopped (a crash, or a cluster node that died): found when the session was recovered, it is lost. TaskOutput and TaskStop say so. */
        BackgroundTaskLostEvent: {
            /** @enum {string} */
            type: "BackgroundTaskLost";
            /** @description The session the event belongs to */
            sessionId: string;
            /** @description The background task, as the call that started it answered (`bash_...`) */
            taskId: string;
            /** @description The call that started it */
            callId: string;
            /** @description Its command */
            command: string;
            /** @description The server that ran it */
            nodeId: string;
            /** @description The file its output was written to until then */
            outputPath?: string;
            /** @description The event's sequence number in its session: 1, 2, 3, ... without gaps; also the frame's `id:` */
            seq: number;
            /** @description When the event was stored, ISO 8601 in UTC */
            at: string;
        };
        /** @description Every call of a batch has its result */
        BatchCompletedEvent: {
            /** @enum {string} */
            type: "BatchCompleted";
            /** @description The session the event belongs to */
            sessionId: string;
            /** @description The schedule the event belongs to */
            scheduleId?: string;
            /** @description The batch's position in the schedule's `groups`, from 0 */
            batchIndex: number;
            /** @description The ids of the calls of the batch, in schedule order */
            callIds: string[];
            /** @description A result of the batch asked to stop the turn: the batches after it are cancelled */
            stopTurn: boolean;
            /** @description The event's sequence number in its session: 1, 2, 3, ... without gaps; also the frame's `id:` */
            seq: number;
            /** @description When the event was stored, ISO 8601 in UTC */
            at: string;
        };
        /** @description A batch of calls started */
        BatchStartedEvent: {
            /** @enum {string} */
            type: "BatchStarted";
            /** @description The session the event belongs to */
            sessionId: string;
            /** @description The schedule the event belongs to */
            scheduleId?: string;
            /** @description The batch's position in the schedule's `groups`, from 0 */
            batchIndex: number;
            /** @description The ids of the calls of the batch, in schedule order */
            callIds: string[];
            /** @description The event's sequence number in its session: 1, 2, 3, ... without gaps; also the frame's `id:` */
            seq: number;
            /** @description When the event was stored, ISO 8601 in UTC */
            at: string;
        };
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
            /** @description Once the call ended: exactly what the model receives (R37), given here only: `result` does not repeat it */
            modelContent?: string | components["schemas"]["ModelContentBlock"][];
            result?: components["schemas"]["CallResult"];
        };
        CallRecordStatus: "pending" | "awaiting_permission" | "running" | components["schemas"]["CallStatus"];
        /** @description The call's one result (R37, R38) as a record carries it: the ToolCallResult event's `result` without `modelContent`, which is the record's own `modelContent`, and without the parts of `output` that repeat a text of this reply */
        CallResult: {
            callId: string;
            toolName: string;
            success: boolean;
            status: components["schemas"]["CallStatus"];
            isError: boolean;
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
            /** @description The tool's output as produced, without the texts this reply has elsewhere: left out when it equals the record's `modelContent` (`outputIsModelContent`); an `output.output` text that begins with the record's `modelContent` text keeps only what follows it (`outputAfterModelContent`); with a `bash_output` or `background_task_output` display, its `output` text stops where `display.output` begins (`outputRestInDisplay`), and an `omitted` part gives `bytes` and `headLength` instead of repeating `head` and `tail`: the head is the first `headLength` characters (UTF-16 code units) of the kept text, then comes `\n\n... [<bytes> bytes omitted] ...\n\n`, then the tail */
            output?: unknown;
            /**
             * @description `output` is left out: it is the same as the record's (or history entry's) `modelContent`
             * @enum {boolean}
             */
            outputIsModelContent?: true;
            /**
             * @description `output.output` holds only what follows the record's (or history entry's) `modelContent` text: the tool's output text is `modelContent + output.output` (a short command's output, which the model reads as printed but for the last newline)
             * @enum {boolean}
             */
            outputAfterModelContent?: true;
            /**
             * @description `output.output` stops where `display.output` begins: the tool's kept output text is `output.output` followed by `display.output`. The whole output, when it was saved, is the artifact `toolexec-artifact://<sessionId>/<artifactId>` named by `serialization.artifactUri` (or `output.artifactUri`): GET /artifacts/{sessionId}/{artifactId}
             * @enum {boolean}
             */
            outputRestInDisplay?: true;
        };
        CallStatus: "succeeded" | "failed" | "denied" | "cancelled" | "timed_out" | "interrupted";
        /** @description The principal a request carries, as a client shows it (the console shows the name and role and offers only what the scopes allow) */
        Caller: {
            /** @description The key id (`key_...`, `link_...` for a short-lived link), `jwt:<issuer>#<subject>` for a token of the identity provider, `admin` for TOOLEXEC_TOKEN, `local` when the server runs without a token */
            id: string;
            /** @description The name it was minted with; what a decision it makes is recorded under */
            name: string;
            /** @description `admin`: TOOLEXEC_TOKEN; `key`: an API key or a short-lived link; `token`: a JWT of the identity provider (TOOLEXEC_JWT_ISSUER); `local`: anyone on this machine, the server running without a token */
            kind: "admin" | "key" | "token" | "local";
            /** @description The role the key was given (or a token names in `toolexec_role`); null for a key given a list of scopes, the administrator and the local principal */
            role: components["schemas"]["Role"] | null;
            /** @description What it may do: each operation needs the scope its `security` lists */
            scopes: components["schemas"]["Scope"][];
            limits: {
                /** @description The sessions it is limited to; null when not limited by them */
                sessions: string[] | null;
                /** @description The workspace paths it is limited to; null when not limited by them */
                workspaces: string[] | null;
            };
            /** @description When it stops working; null when it does not expire */
            expiresAt: string | null;
        };
        /** @description Exactly one of `role` and `scopes`. A key never gets a scope, a session, a workspace or a time its minting key lacks */
        CreateKeyBody: {
            /** @description Who or what holds the key, for people reading lists and logs */
            name: string;
            role?: components["schemas"]["Role"];
            /** @description The scopes, when no `role` is given */
            scopes?: components["schemas"]["Scope"][];
            /**
             * Format: date-time
             * @description When the key stops working (ISO 8601); it never expires when absent, unless the minting key does
             */
            expiresAt?: string;
            /** @description The key sees these sessions only (and those under `workspaces`); any other answers 404 as if it did not exist */
            sessions?: string[];
            /** @description Absolute paths: the key sees the sessions whose workspace lies under one of them (and those of `sessions`), and creates sessions only there */
            workspaces?: string[];
        };
        /** @description The calls, given in exactly one of four shapes: toolexec's own `calls`, or a model API's reply as it came: `anthropic`, `openaiChat`, `openaiResponses`. A function call whose `arguments` is not a JSON object is accepted and fails with a validation error the model reads; the other calls run. */
        CreateScheduleBody: {
            sessionId: string;
            /** @description Create the session `sessionId` when it does not exist, with these fields of POST /sessions' body (its id is `sessionId`); without it an unknown session is a 404 `API_ERR_SESSION_NOT_FOUND`. On a session that exists, each field given must equal the one the session has, so that a retry of the same request is accepted; a field that differs is a 409 `API_ERR_SESSION_DIFFERS`, and nothing is stored. */
            createSession?: {
                /** @description Where the session's tools work (relative: to the server's default, TOOLEXEC_WORKSPACE); never inside the server's own install directory */
                workspace?: string;
                permissionMode?: components["schemas"]["PermissionMode"];
                interactive?: boolean;
                permissionTimeoutMs?: number;
                sandbox?: components["schemas"]["SandboxSettings"];
                /** @description Four eyes: the key that scheduled a call may not decide its approval (403 `API_ERR_FOUR_EYES`); without TOOLEXEC_TOKEN everyone is the same `local` principal, so nobody can approve */
                fourEyes?: boolean;
            };
            turnId?: string;
            calls?: components["schemas"]["ScheduleCallInput"][];
            anthropic?: components["schemas"]["AnthropicAssistantContent"];
            openaiChat?: components["schemas"]["OpenAIChatToolCalls"];
            openaiResponses?: components["schemas"]["OpenAIResponsesOutput"];
            open?: boolean;
        };
        CreateSessionBody: {
            id?: string;
            /** @description A name for people to tell the session by, 1 to 120 characters, not blank, no control characters, line separators or bidirectional overrides */
            label?: string;
            /** @description Where the session's tools work (relative: to the server's default, TOOLEXEC_WORKSPACE); never inside the server's own install directory */
            workspace?: string;
            permissionMode?: components["schemas"]["PermissionMode"];
            interactive?: boolean;
            permissionTimeoutMs?: number;
            sandbox?: components["schemas"]["SandboxSettings"];
            /** @description Four eyes: the key that scheduled a call may not decide its approval (403 `API_ERR_FOUR_EYES`); without TOOLEXEC_TOKEN everyone is the same `local` principal, so nobody can approve */
            fourEyes?: boolean;
        };
        CreatedKey: {
            key: components["schemas"]["ApiKey"];
            /** @description The bearer token: `txk_` and 43 characters. Shown this once; it cannot be read back */
            secret: string;
        };
        /** @description Who decided a permission request */
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
        /** @description What went wrong, one of a fixed set: match on it, not on the message */
        ErrorCode: "API_ERR_VALIDATION" | "API_ERR_BAD_REQUEST" | "API_ERR_BAD_DEPENDENCY" | "EXEC_ERR_DEPENDENCY_CYCLE" | "EXEC_ERR_UNKNOWN_DEPENDENCY" | "EXEC_ERR_INVALID_TOOL" | "API_ERR_UNAUTHORIZED" | "API_ERR_IDENTITY_PROVIDER_UNAVAILABLE" | "API_ERR_HOST_NOT_LOOPBACK" | "API_ERR_FORBIDDEN" | "API_ERR_KEY_TOO_WIDE" | "API_ERR_ORIGIN_NOT_ALLOWED" | "API_ERR_NOT_FOUND" | "API_ERR_SESSION_NOT_FOUND" | "API_ERR_SCHEDULE_NOT_FOUND" | "API_ERR_PERMISSION_NOT_FOUND" | "API_ERR_ARTIFACT_NOT_FOUND" | "API_ERR_ARTIFACT_FILE_MISSING" | "API_ERR_RULE_NOT_FOUND" | "API_ERR_RULE_NOT_OFFERED" | "API_ERR_TOOL_NOT_FOUND" | "API_ERR_KEY_NOT_FOUND" | "API_ERR_LINK_NOT_FOUND" | "API_ERR_REQUEST_TIMEOUT" | "API_ERR_SESSION_EXISTS" | "API_ERR_SESSION_DIFFERS" | "API_ERR_WORKSPACE_IN_INSTALL" | "API_ERR_SESSION_BUSY" | "API_ERR_CALL_ID_TAKEN" | "EXEC_ERR_DUPLICATE_CALL_ID" | "EXEC_ERR_DUPLICATE_TOOL" | "API_ERR_SCHEDULE_NOT_OPEN" | "API_ERR_PERMISSION_DECIDED" | "API_ERR_PERMISSION_CLOSED" | "API_ERR_PERMISSION_INPUT_CHANGED" | "API_ERR_FOUR_EYES" | "API_ERR_TOOL_NOT_DELETABLE" | "API_ERR_BODY_TOO_LARGE" | "API_ERR_URI_TOO_LONG" | "API_ERR_UNSUPPORTED_MEDIA_TYPE" | "API_ERR_RANGE" | "API_ERR_TOO_MANY_SCHEDULES" | "API_ERR_HEADERS_TOO_LARGE" | "API_ERR_NOT_ACCEPTABLE" | "API_ERR_INTERNAL" | "API_ERR_STORAGE_UNAVAILABLE" | "API_ERR_SESSION_MOVING" | "API_ERR_STORAGE_CORRUPT" | "API_ERR_SHUTTING_DOWN" | "API_ERR_STORAGE_FULL";
        /** @description Every error reply: 4xx and 5xx alike */
        ErrorReply: {
            error: {
                code: components["schemas"]["ErrorCode"];
                /** @description What went wrong, for a person: names the value or the place; not meant to be parsed */
                message: string;
                /** @description For API_ERR_VALIDATION, every finding of the schema check; for some codes, the values of the message */
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
            /** @description Exactly what the model received (R37), given here only: `result` does not repeat it */
            modelContent: string | components["schemas"]["ModelContentBlock"][];
            result: components["schemas"]["CallResult"];
        };
        /** @description A hook blocked the call */
        HookRunBlockedEvent: {
            /** @enum {string} */
            type: "HookRunBlocked";
            /** @description The session the event belongs to */
            sessionId: string;
            /** @description The tool call's id, as the client gave it in the schedule */
            callId: string;
            /** @description The name of the called tool */
            toolName: string;
            /** @description The hook event: PreToolUse, PostToolUse, PostToolUseFailure or PermissionRequest */
            hookEvent: string;
            /** @description The hook: `command: ` and its command line, or `http: ` and its URL (cut at 80 characters) */
            hook: string;
            /** @description The hook's reason, as the model will read it */
            reason: string;
            /** @description The event's sequence number in its session: 1, 2, 3, ... without gaps; also the frame's `id:` */
            seq: number;
            /** @description When the event was stored, ISO 8601 in UTC */
            at: string;
        };
        /** @description A hook ended without blocking the call */
        HookRunCompletedEvent: {
            /** @enum {string} */
            type: "HookRunCompleted";
            /** @description The session the event belongs to */
            sessionId: string;
            /** @description The tool call's id, as the client gave it in the schedule */
            callId: string;
            /** @description The name of the called tool */
            toolName: string;
            /** @description The hook event: PreToolUse, PostToolUse, PostToolUseFailure or PermissionRequest */
            hookEvent: string;
            /** @description The hook: `command: ` and its command line, or `http: ` and its URL (cut at 80 characters) */
            hook: string;
            /** @description What the hook answered, as parsed */
            output?: unknown;
            /** @description The event's sequence number in its session: 1, 2, 3, ... without gaps; also the frame's `id:` */
            seq: number;
            /** @description When the event was stored, ISO 8601 in UTC */
            at: string;
        };
        /** @description A hook failed; the call goes on unless the hook fails closed */
        HookRunFailedEvent: {
            /** @enum {string} */
            type: "HookRunFailed";
            /** @description The session the event belongs to */
            sessionId: string;
            /** @description The tool call's id, as the client gave it in the schedule */
            callId: string;
            /** @description The name of the called tool */
            toolName: string;
            /** @description The hook event: PreToolUse, PostToolUse, PostToolUseFailure or PermissionRequest */
            hookEvent: string;
            /** @description The hook: `command: ` and its command line, or `http: ` and its URL (cut at 80 characters) */
            hook: string;
            /** @description Why the hook failed: its exit, its timeout or a malformed answer */
            error: string;
            /** @description The event's sequence number in its session: 1, 2, 3, ... without gaps; also the frame's `id:` */
            seq: number;
            /** @description When the event was stored, ISO 8601 in UTC */
            at: string;
        };
        /** @description A hook started for a call */
        HookRunStartedEvent: {
            /** @enum {string} */
            type: "HookRunStarted";
            /** @description The session the event belongs to */
            sessionId: string;
            /** @description The tool call's id, as the client gave it in the schedule */
            callId: string;
            /** @description The name of the called tool */
            toolName: string;
            /** @description The hook event: PreToolUse, PostToolUse, PostToolUseFailure or PermissionRequest */
            hookEvent: string;
            /** @description The hook: `command: ` and its command line, or `http: ` and its URL (cut at 80 characters) */
            hook: string;
            /** @description The event's sequence number in its session: 1, 2, 3, ... without gaps; also the frame's `id:` */
            seq: number;
            /** @description When the event was stored, ISO 8601 in UTC */
            at: string;
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
        /** @description A tool's request to the model moved on; the call's timeout does not run while it waits for admission (R22) */
        ModelNetworkStatusEvent: {
            /** @enum {string} */
            type: "ModelNetworkStatus";
            /** @description The session the event belongs to */
            sessionId: string;
            /** @description The tool call's id, as the client gave it in the schedule */
            callId: string;
            /** @description Where the call's model request stands: waiting for admission, admitted, done, failed */
            status: "model_request_queued" | "model_request_admitted" | "model_request_completed" | "model_request_failed";
            /** @description How long the request waited for admission, in milliseconds (on admission) */
            queuedMs?: number;
            /** @description The event's sequence number in its session: 1, 2, 3, ... without gaps; also the frame's `id:` */
            seq: number;
            /** @description When the event was stored, ISO 8601 in UTC */
            at: string;
        };
        /** @description A tool message cannot carry an image: after the tool messages, one user message carries the images of every call, each group introduced by the text `Images returned by tool call <id>:` */
        OpenAIChatImagesMessage: {
            /** @enum {string} */
            role: "user";
            content: ({
                /** @enum {string} */
                type: "text";
                text: string;
            } | {
                /** @enum {string} */
                type: "image_url";
                image_url: {
                    /** @description A data: URL */
                    url: string;
                };
            })[];
        };
        /** @description format=openai-chat: `messages` once `done`: one tool message per call, in call order, then at most one user message with the images */
        OpenAIChatSchedule: {
            scheduleId: string;
            sessionId: string;
            turnId: string;
            status: components["schemas"]["ScheduleStatus"];
            /** @description Every call of the schedule has ended (and it is closed): the format's results are present */
            done: boolean;
            /** @description R30: a result asks to end the turn after it: send the results, then do not call the model again */
            stopTurn: boolean;
            turnControl?: {
                reason: string;
                /** @enum {boolean} */
                stopTurnAfterResult: true;
            };
            messages?: (components["schemas"]["OpenAIChatToolMessage"] | components["schemas"]["OpenAIChatImagesMessage"])[];
        };
        /** @description One entry of the Chat Completions `tools` parameter */
        OpenAIChatTool: {
            /** @enum {string} */
            type: "function";
            function: {
                name: string;
                description: string;
                /** @description A JSON Schema with `type: "object"` at the top */
                parameters: {
                    [key: string]: unknown;
                };
            };
        };
        /** @description The assistant message's `tool_calls` as Chat Completions returned them: its function calls become the calls, in order */
        OpenAIChatToolCalls: ({
            id: string;
            /** @enum {string} */
            type: "function";
            /** @description Other fields are accepted and ignored */
            function: {
                name: string;
                /** @description The input as a JSON text; one that is not a JSON object fails its call, not the request */
                arguments: string;
            };
        } | {
            /** @description Any type but `function` */
            type: string;
        })[];
        OpenAIChatToolMessage: {
            /** @enum {string} */
            role: "tool";
            tool_call_id: string;
            content: string | {
                /** @enum {string} */
                type: "text";
                text: string;
            }[];
        };
        OpenAIFunctionCallOutput: {
            /** @enum {string} */
            type: "function_call_output";
            call_id: string;
            output: string | ({
                /** @enum {string} */
                type: "input_text";
                text: string;
            } | {
                /** @enum {string} */
                type: "input_image";
                /** @description A data: URL */
                image_url: string;
            })[];
        };
        /** @description The response's `output` as the Responses API returned it: its `function_call` items become the calls, in order */
        OpenAIResponsesOutput: ({
            /** @enum {string} */
            type: "function_call";
            call_id: string;
            name: string;
            /** @description The input as a JSON text; one that is not a JSON object fails its call, not the request */
            arguments: string;
            id?: string;
        } | {
            /** @description Any item type but `function_call` */
            type: string;
        })[];
        /** @description format=openai-responses: `input` once `done`: one `function_call_output` per call, in call order */
        OpenAIResponsesSchedule: {
            scheduleId: string;
            sessionId: string;
            turnId: string;
            status: components["schemas"]["ScheduleStatus"];
            /** @description Every call of the schedule has ended (and it is closed): the format's results are present */
            done: boolean;
            /** @description R30: a result asks to end the turn after it: send the results, then do not call the model again */
            stopTurn: boolean;
            turnControl?: {
                reason: string;
                /** @enum {boolean} */
                stopTurnAfterResult: true;
            };
            input?: components["schemas"]["OpenAIFunctionCallOutput"][];
        };
        /** @description One entry of the Responses API `tools` parameter */
        OpenAIResponsesTool: {
            /** @enum {string} */
            type: "function";
            name: string;
            description: string;
            /** @description A JSON Schema with `type: "object"` at the top */
            parameters: {
                [key: string]: unknown;
            };
            /**
             * @description The schemas are not written for strict mode (every property required, no open objects)
             * @enum {boolean}
             */
            strict: false;
        };
        PermissionAnswerBody: {
            decision: "allow" | "deny";
            scope?: "once" | "session" | "project";
            message?: string;
            /** @description With scope `project`: the `rules` of one of the request's `suggestedRules`, the choice the person took (else 400 `API_ERR_RULE_NOT_OFFERED`); absent: the `suggestedRule` */
            rules?: string[];
            sessionId?: string;
            /** @description The request's `inputHash` as the decider saw it: when given, the decision holds only for that exact input (else 409 `API_ERR_PERMISSION_INPUT_CHANGED`) */
            inputHash?: string;
        };
        PermissionMode: "default" | "acceptEdits" | "plan" | "dontAsk" | "bypassPermissions";
        PermissionRequestRecord: {
            id: string;
            sessionId: string;
            callId: string;
            toolName: string;
            input: unknown;
            /** @description SHA-256 (hex) of `input` in the JSON Canonicalization Scheme (RFC 8785); send it with the decision to bind the decision to this input */
            inputHash: string;
            /** @description As in the PermissionRequested event: a diff, or where and how a command would run */
            preview?: unknown;
            /** @description How much harm the call could do if it went wrong, as the permission rules judge it */
            riskLevel: "low" | "medium" | "high";
            reason: string;
            suggestedRule?: string;
            /** @description The project rules a decision with scope `project` may add, `suggestedRule` first */
            suggestedRules?: {
                /** @description `exact`: this command (or file, domain, tool) only; `prefix`: each part of the command by its first words (`Bash(npm test:*)`); `segments`: each part of a compound command exactly */
                kind: "exact" | "prefix" | "segments";
                /** @description The allow rules the choice adds, all of them: together they allow this call again, and every part of it */
                rules: string[];
            }[];
            status: "pending" | "allow" | "deny";
            decidedBy?: components["schemas"]["DecidedBy"];
            /** @description Who decided through POST /permissions/{id}: the key id, `admin` (TOOLEXEC_TOKEN) or `local` (no token) */
            deciderId?: string;
            /** @description That key's name */
            deciderName?: string;
            message?: string;
            scope?: string;
            createdAt: string;
            decidedAt?: string;
        };
        /** @description A call waits for approval: answer it with POST /permissions/{id} */
        PermissionRequestedEvent: {
            /** @enum {string} */
            type: "PermissionRequested";
            /** @description The session the event belongs to */
            sessionId: string;
            /** @description The id to answer with POST /permissions/{id} */
            permissionId: string;
            /** @description The tool call's id, as the client gave it in the schedule */
            callId: string;
            /** @description The name of the called tool */
            toolName: string;
            /** @description The input the call would run with if allowed */
            input: unknown;
            /** @description SHA-256 (hex) of `input` in the JSON Canonicalization Scheme (RFC 8785): send it with the decision to bind it to this input */
            inputHash: string;
            /** @description What the call would change, when the tool can tell: for a Write or an Edit `display`, a file_diff (the file relative to the workspace) and, when that diff is cut, `wholeDiff`, all of it; for Bash `command`: `cwd`, `confined` (with `reason` when not), where an allowed command may write (`writable`, but `protected`) and `network` */
            preview?: unknown;
            /** @description How much harm the call could do if it went wrong, as the permission rules judge it */
            riskLevel: "low" | "medium" | "high";
            /** @description Why a person is asked */
            reason: string;
            /** @description A permission rule that would allow calls like this one, to offer as "always allow" */
            suggestedRule?: string;
            /** @description The project rules a decision with scope `project` may add (its `rules`), the narrowest first; absent: `suggestedRule` alone */
            suggestedRules?: {
                /** @description `exact`: this command (or file, domain, tool) only; `prefix`: each part of the command by its first words (`Bash(npm test:*)`); `segments`: each part of a compound command exactly */
                kind: "exact" | "prefix" | "segments";
                /** @description The allow rules the choice adds, all of them: together they allow this call again, and every part of it */
                rules: string[];
            }[];
            /** @description The event's sequence number in its session: 1, 2, 3, ... without gaps; also the frame's `id:` */
            seq: number;
            /** @description When the event was stored, ISO 8601 in UTC */
            at: string;
        };
        /** @description A permission decision for a call: a person, a hook, a rule, a timeout or an abort decided */
        PermissionResolvedEvent: {
            /** @enum {string} */
            type: "PermissionResolved";
            /** @description The session the event belongs to */
            sessionId: string;
            /** @description The answered request; absent when a rule decided without asking */
            permissionId?: string;
            /** @description The tool call's id, as the client gave it in the schedule */
            callId: string;
            /** @description The name of the called tool */
            toolName: string;
            /** @description Whether the call may run */
            decision: "allow" | "deny";
            decidedBy: components["schemas"]["DecidedBy"];
            /** @description The deny message or the rule's reason */
            reason?: string;
            /** @description The rule, or the PermissionRequest hook, that decided */
            ruleId?: string;
            /** @description How far an allow given by a person reaches: once, session or project */
            scope?: string;
            /** @description With scope `project`, the rules the person chose to add; absent: `suggestedRule` */
            rules?: string[];
            /** @description The person who decided (decidedBy `client`): the key id, `admin` (TOOLEXEC_TOKEN) or `local` (no token) */
            deciderId?: string;
            /** @description That key's name */
            deciderName?: string;
            /** @description The event's sequence number in its session: 1, 2, 3, ... without gaps; also the frame's `id:` */
            seq: number;
            /** @description When the event was stored, ISO 8601 in UTC */
            at: string;
        };
        ProjectRule: {
            id: string;
            workspace: string;
            rule: string;
            createdAt: string;
        };
        /** @description OAuth 2.0 protected resource metadata (RFC 9728), as the MCP authorization specification asks */
        ProtectedResourceMetadata: {
            /** @description This server as a protected resource: TOOLEXEC_JWT_AUDIENCE when it is a URL, else the origin the request reached */
            resource: string;
            /** @description The identity provider whose tokens are accepted: TOOLEXEC_JWT_ISSUER */
            authorization_servers: string[];
            /** @description Every scope; a token names those it holds in its `scope` claim, space-separated */
            scopes_supported: components["schemas"]["Scope"][];
            /** @description Tokens go in the Authorization header */
            bearer_methods_supported: "header"[];
        };
        ResultBudget: {
            maxModelBytes: number;
            maxInlineBytes: number;
            strategy: "artifact" | "truncate";
            previewDirection: "head" | "tail";
        };
        /** @description owner: every scope; agent: create, schedule, read, stream and abort its sessions; approver: read, stream, decide and mint links; observer: read and stream; auditor: the audit log and read */
        Role: "owner" | "agent" | "approver" | "observer" | "auditor";
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
        /** @description A schedule was stored; its calls will run in these batches */
        ScheduleAcceptedEvent: {
            /** @enum {string} */
            type: "ScheduleAccepted";
            /** @description The session the event belongs to */
            sessionId: string;
            /** @description The schedule the event belongs to */
            scheduleId: string;
            /** @description The turn (model reply) the schedule belongs to */
            turnId: string;
            /** @description The batches the calls run in, in order: the calls of one batch run in parallel */
            groups: string[][];
            /** @description Each call's id and tool name, in schedule order (absent from events stored before it was added): a viewer names the calls without reading the schedule */
            calls?: {
                id: string;
                /** @description The name of the called tool */
                name: string;
            }[];
            /** @description The event's sequence number in its session: 1, 2, 3, ... without gaps; also the frame's `id:` */
            seq: number;
            /** @description When the event was stored, ISO 8601 in UTC */
            at: string;
        };
        ScheduleCallInput: {
            id: string;
            name: string;
            input: unknown;
            dependsOn?: string[];
        };
        /** @description A schedule ended: every one of its calls has a result */
        ScheduleCompletedEvent: {
            /** @enum {string} */
            type: "ScheduleCompleted";
            /** @description The session the event belongs to */
            sessionId: string;
            /** @description The schedule the event belongs to */
            scheduleId: string;
            /** @description completed: every call has its result; stopped: a result stopped the turn; cancelled: the turn was aborted */
            status: "completed" | "stopped" | "cancelled";
            /** @description The event's sequence number in its session: 1, 2, 3, ... without gaps; also the frame's `id:` */
            seq: number;
            /** @description When the event was stored, ISO 8601 in UTC */
            at: string;
        };
        ScheduleStatus: "open" | "queued" | "running" | "completed" | "stopped" | "cancelled";
        /** @description One kind of action; every route needs exactly one (see the `security` of each operation) */
        Scope: "sessions:create" | "sessions:read" | "sessions:abort" | "sessions:delete" | "events:read" | "schedules:write" | "approvals:decide" | "rules:read" | "rules:write" | "tools:read" | "tools:write" | "cluster:read" | "keys:read" | "keys:write" | "links:write" | "audit:read";
        Session: {
            id: string;
            workspace: string;
            permissionMode: components["schemas"]["PermissionMode"];
            interactive: boolean;
            permissionTimeoutMs: number | null;
            sandbox?: components["schemas"]["SandboxSettings"];
            /** @description Present (true) when the session is under four eyes */
            fourEyes?: boolean;
            /** @description The name a person gave the session, when one did (POST /sessions, PATCH /sessions/{id}) */
            label?: string;
            createdAt: string;
            status: "idle" | "running" | "awaiting_permission";
            counts: {
                schedules: number;
                calls: number;
                pendingPermissions: number;
            };
            lastEventId: number;
        };
        /** @description The `data:` of one event stream frame: one JSON object, told apart by `type` (also the frame's `event:`) */
        SessionEvent: components["schemas"]["ScheduleAcceptedEvent"] | components["schemas"]["BatchStartedEvent"] | components["schemas"]["BatchCompletedEvent"] | components["schemas"]["ToolCallStartedEvent"] | components["schemas"]["PermissionRequestedEvent"] | components["schemas"]["PermissionResolvedEvent"] | components["schemas"]["ModelNetworkStatusEvent"] | components["schemas"]["ToolCallProgressEvent"] | components["schemas"]["ToolCallResultEvent"] | components["schemas"]["HookRunStartedEvent"] | components["schemas"]["HookRunCompletedEvent"] | components["schemas"]["HookRunBlockedEvent"] | components["schemas"]["HookRunFailedEvent"] | components["schemas"]["ScheduleCompletedEvent"] | components["schemas"]["BackgroundTaskLostEvent"];
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
        /** @description A running call reported progress */
        ToolCallProgressEvent: {
            /** @enum {string} */
            type: "ToolCallProgress";
            /** @description The session the event belongs to */
            sessionId: string;
            /** @description The tool call's id, as the client gave it in the schedule */
            callId: string;
            /** @description The name of the called tool */
            toolName: string;
            /** @description What the tool reports, in its own shape (output so far, bytes, a step) */
            progress: {
                [key: string]: unknown;
            };
            /** @description The event's sequence number in its session: 1, 2, 3, ... without gaps; also the frame's `id:` */
            seq: number;
            /** @description When the event was stored, ISO 8601 in UTC */
            at: string;
        };
        /** @description A call ended (succeeded, failed, denied, cancelled, timed out or interrupted): its one result, with the exact modelContent the model receives */
        ToolCallResultEvent: {
            /** @enum {string} */
            type: "ToolCallResult";
            /** @description The session the event belongs to */
            sessionId: string;
            /** @description The tool call's id, as the client gave it in the schedule */
            callId: string;
            /** @description The name of the called tool */
            toolName: string;
            result: components["schemas"]["ToolExecutionResult"];
            /** @description The event's sequence number in its session: 1, 2, 3, ... without gaps; also the frame's `id:` */
            seq: number;
            /** @description When the event was stored, ISO 8601 in UTC */
            at: string;
        };
        /** @description A call passed validation, hooks and permission; its handler runs now (the call's timeout starts) */
        ToolCallStartedEvent: {
            /** @enum {string} */
            type: "ToolCallStarted";
            /** @description The session the event belongs to */
            sessionId: string;
            /** @description The tool call's id, as the client gave it in the schedule */
            callId: string;
            /** @description The name of the called tool */
            toolName: string;
            /** @description The input the handler runs with: after normalization and any rewrite by a hook, as approved */
            input: unknown;
            flags: components["schemas"]["ToolFlags"];
            /** @description The event's sequence number in its session: 1, 2, 3, ... without gaps; also the frame's `id:` */
            seq: number;
            /** @description When the event was stored, ISO 8601 in UTC */
            at: string;
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
        UpdateSessionBody: {
            /** @description The new label; null takes the label away */
            label: string | null;
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
                /**
                 * @description Sessions per page, 1 to 500 (50 when absent)
                 * @example 10
                 */
                limit?: number;
                /**
                 * @description The `next` of the previous page: sessions created before this one
                 * @example ses_0f4bd3a8-2c7e-4f0e-9a51-6d1f3c2b7e90
                 */
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
            /** @description Every error reply: 4xx and 5xx alike */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Missing or wrong bearer token (only when the server runs with TOOLEXEC_TOKEN); the WWW-Authenticate header says why (RFC 6750) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description With a token: the key lacks the scope `sessions:read` (`API_ERR_FORBIDDEN`), or would reach outside the sessions or workspaces it is limited to. Only when the server runs without TOOLEXEC_TOKEN: the Host is not a loopback name (localhost, 127.x.x.x or [::1]; `API_ERR_HOST_NOT_LOOPBACK`), or a web page on another site sent the request (an Origin neither loopback nor in TOOLEXEC_CORS_ORIGINS, or Sec-Fetch-Site: cross-site; `API_ERR_ORIGIN_NOT_ALLOWED`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Every error reply: 4xx and 5xx alike */
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
            /** @description Every error reply: 4xx and 5xx alike */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Missing or wrong bearer token (only when the server runs with TOOLEXEC_TOKEN); the WWW-Authenticate header says why (RFC 6750) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description With a token: the key lacks the scope `sessions:create` (`API_ERR_FORBIDDEN`), or would reach outside the sessions or workspaces it is limited to. Only when the server runs without TOOLEXEC_TOKEN: the Host is not a loopback name (localhost, 127.x.x.x or [::1]; `API_ERR_HOST_NOT_LOOPBACK`), or a web page on another site sent the request (an Origin neither loopback nor in TOOLEXEC_CORS_ORIGINS, or Sec-Fetch-Site: cross-site; `API_ERR_ORIGIN_NOT_ALLOWED`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Every error reply: 4xx and 5xx alike */
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
            /** @description Every error reply: 4xx and 5xx alike */
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
                /** @example ses_0f4bd3a8-2c7e-4f0e-9a51-6d1f3c2b7e90 */
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
            /** @description Missing or wrong bearer token (only when the server runs with TOOLEXEC_TOKEN); the WWW-Authenticate header says why (RFC 6750) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description With a token: the key lacks the scope `sessions:read` (`API_ERR_FORBIDDEN`), or would reach outside the sessions or workspaces it is limited to. Only when the server runs without TOOLEXEC_TOKEN: the Host is not a loopback name (localhost, 127.x.x.x or [::1]; `API_ERR_HOST_NOT_LOOPBACK`), or a web page on another site sent the request (an Origin neither loopback nor in TOOLEXEC_CORS_ORIGINS, or Sec-Fetch-Site: cross-site; `API_ERR_ORIGIN_NOT_ALLOWED`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Every error reply: 4xx and 5xx alike */
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
                /** @example ses_0f4bd3a8-2c7e-4f0e-9a51-6d1f3c2b7e90 */
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
            /** @description Missing or wrong bearer token (only when the server runs with TOOLEXEC_TOKEN); the WWW-Authenticate header says why (RFC 6750) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description With a token: the key lacks the scope `sessions:delete` (`API_ERR_FORBIDDEN`), or would reach outside the sessions or workspaces it is limited to. Only when the server runs without TOOLEXEC_TOKEN: the Host is not a loopback name (localhost, 127.x.x.x or [::1]; `API_ERR_HOST_NOT_LOOPBACK`), or a web page on another site sent the request (an Origin neither loopback nor in TOOLEXEC_CORS_ORIGINS, or Sec-Fetch-Site: cross-site; `API_ERR_ORIGIN_NOT_ALLOWED`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Every error reply: 4xx and 5xx alike */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Every error reply: 4xx and 5xx alike */
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
    updateSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example ses_0f4bd3a8-2c7e-4f0e-9a51-6d1f3c2b7e90 */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateSessionBody"];
            };
        };
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
            /** @description Every error reply: 4xx and 5xx alike */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Missing or wrong bearer token (only when the server runs with TOOLEXEC_TOKEN); the WWW-Authenticate header says why (RFC 6750) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description With a token: the key lacks the scope `sessions:create` (`API_ERR_FORBIDDEN`), or would reach outside the sessions or workspaces it is limited to. Only when the server runs without TOOLEXEC_TOKEN: the Host is not a loopback name (localhost, 127.x.x.x or [::1]; `API_ERR_HOST_NOT_LOOPBACK`), or a web page on another site sent the request (an Origin neither loopback nor in TOOLEXEC_CORS_ORIGINS, or Sec-Fetch-Site: cross-site; `API_ERR_ORIGIN_NOT_ALLOWED`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Every error reply: 4xx and 5xx alike */
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
            /** @description Every error reply: 4xx and 5xx alike */
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
    abortSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example ses_0f4bd3a8-2c7e-4f0e-9a51-6d1f3c2b7e90 */
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
            /** @description Missing or wrong bearer token (only when the server runs with TOOLEXEC_TOKEN); the WWW-Authenticate header says why (RFC 6750) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description With a token: the key lacks the scope `sessions:abort` (`API_ERR_FORBIDDEN`), or would reach outside the sessions or workspaces it is limited to. Only when the server runs without TOOLEXEC_TOKEN: the Host is not a loopback name (localhost, 127.x.x.x or [::1]; `API_ERR_HOST_NOT_LOOPBACK`), or a web page on another site sent the request (an Origin neither loopback nor in TOOLEXEC_CORS_ORIGINS, or Sec-Fetch-Site: cross-site; `API_ERR_ORIGIN_NOT_ALLOWED`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Every error reply: 4xx and 5xx alike */
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
                /** @example ses_0f4bd3a8-2c7e-4f0e-9a51-6d1f3c2b7e90 */
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
            /** @description Missing or wrong bearer token (only when the server runs with TOOLEXEC_TOKEN); the WWW-Authenticate header says why (RFC 6750) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description With a token: the key lacks the scope `sessions:read` (`API_ERR_FORBIDDEN`), or would reach outside the sessions or workspaces it is limited to. Only when the server runs without TOOLEXEC_TOKEN: the Host is not a loopback name (localhost, 127.x.x.x or [::1]; `API_ERR_HOST_NOT_LOOPBACK`), or a web page on another site sent the request (an Origin neither loopback nor in TOOLEXEC_CORS_ORIGINS, or Sec-Fetch-Site: cross-site; `API_ERR_ORIGIN_NOT_ALLOWED`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Every error reply: 4xx and 5xx alike */
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
        /** @description The calls, given in exactly one of four shapes: toolexec's own `calls`, or a model API's reply as it came: `anthropic`, `openaiChat`, `openaiResponses`. A function call whose `arguments` is not a JSON object is accepted and fails with a validation error the model reads; the other calls run. */
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
            /** @description Every error reply: 4xx and 5xx alike */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Missing or wrong bearer token (only when the server runs with TOOLEXEC_TOKEN); the WWW-Authenticate header says why (RFC 6750) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description With a token: the key lacks the scope `schedules:write` (`API_ERR_FORBIDDEN`), or would reach outside the sessions or workspaces it is limited to. Only when the server runs without TOOLEXEC_TOKEN: the Host is not a loopback name (localhost, 127.x.x.x or [::1]; `API_ERR_HOST_NOT_LOOPBACK`), or a web page on another site sent the request (an Origin neither loopback nor in TOOLEXEC_CORS_ORIGINS, or Sec-Fetch-Site: cross-site; `API_ERR_ORIGIN_NOT_ALLOWED`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Every error reply: 4xx and 5xx alike */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Every error reply: 4xx and 5xx alike */
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
            /** @description Every error reply: 4xx and 5xx alike */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Every error reply: 4xx and 5xx alike */
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
                /** @example sch_019a7c3e-5b2d-7f41-8c6e-2a9d4b1f0c37 */
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
            /** @description Every error reply: 4xx and 5xx alike */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Missing or wrong bearer token (only when the server runs with TOOLEXEC_TOKEN); the WWW-Authenticate header says why (RFC 6750) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description With a token: the key lacks the scope `schedules:write` (`API_ERR_FORBIDDEN`), or would reach outside the sessions or workspaces it is limited to. Only when the server runs without TOOLEXEC_TOKEN: the Host is not a loopback name (localhost, 127.x.x.x or [::1]; `API_ERR_HOST_NOT_LOOPBACK`), or a web page on another site sent the request (an Origin neither loopback nor in TOOLEXEC_CORS_ORIGINS, or Sec-Fetch-Site: cross-site; `API_ERR_ORIGIN_NOT_ALLOWED`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Every error reply: 4xx and 5xx alike */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Every error reply: 4xx and 5xx alike */
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
            /** @description Every error reply: 4xx and 5xx alike */
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
                /** @example sch_019a7c3e-5b2d-7f41-8c6e-2a9d4b1f0c37 */
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
            /** @description Missing or wrong bearer token (only when the server runs with TOOLEXEC_TOKEN); the WWW-Authenticate header says why (RFC 6750) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description With a token: the key lacks the scope `schedules:write` (`API_ERR_FORBIDDEN`), or would reach outside the sessions or workspaces it is limited to. Only when the server runs without TOOLEXEC_TOKEN: the Host is not a loopback name (localhost, 127.x.x.x or [::1]; `API_ERR_HOST_NOT_LOOPBACK`), or a web page on another site sent the request (an Origin neither loopback nor in TOOLEXEC_CORS_ORIGINS, or Sec-Fetch-Site: cross-site; `API_ERR_ORIGIN_NOT_ALLOWED`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Every error reply: 4xx and 5xx alike */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Every error reply: 4xx and 5xx alike */
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
                /**
                 * @description Seconds to hold the reply while the schedule is queued or running (0 when absent); fractions allowed
                 * @example 10
                 */
                wait?: number;
                /**
                 * @description A model API's own shapes: Anthropic Messages, OpenAI Chat Completions, OpenAI Responses
                 * @example anthropic
                 */
                format?: "anthropic" | "openai-chat" | "openai-responses";
            };
            header?: never;
            path: {
                /** @example sch_019a7c3e-5b2d-7f41-8c6e-2a9d4b1f0c37 */
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
                    "application/json": components["schemas"]["Schedule"] | components["schemas"]["AnthropicSchedule"] | components["schemas"]["OpenAIChatSchedule"] | components["schemas"]["OpenAIResponsesSchedule"];
                };
            };
            /** @description Every error reply: 4xx and 5xx alike */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Missing or wrong bearer token (only when the server runs with TOOLEXEC_TOKEN); the WWW-Authenticate header says why (RFC 6750) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description With a token: the key lacks the scope `sessions:read` (`API_ERR_FORBIDDEN`), or would reach outside the sessions or workspaces it is limited to. Only when the server runs without TOOLEXEC_TOKEN: the Host is not a loopback name (localhost, 127.x.x.x or [::1]; `API_ERR_HOST_NOT_LOOPBACK`), or a web page on another site sent the request (an Origin neither loopback nor in TOOLEXEC_CORS_ORIGINS, or Sec-Fetch-Site: cross-site; `API_ERR_ORIGIN_NOT_ALLOWED`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Every error reply: 4xx and 5xx alike */
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
                /** @example perm_7c2e9b14-3a5f-4d8e-b061-9f4a2c7d1e35 */
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
            /** @description Every error reply: 4xx and 5xx alike */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Missing or wrong bearer token (only when the server runs with TOOLEXEC_TOKEN); the WWW-Authenticate header says why (RFC 6750) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Every error reply: 4xx and 5xx alike */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Every error reply: 4xx and 5xx alike */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Every error reply: 4xx and 5xx alike */
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
            /** @description Every error reply: 4xx and 5xx alike */
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
                /** @example ses_0f4bd3a8-2c7e-4f0e-9a51-6d1f3c2b7e90 */
                sessionId?: string;
                /** @example pending */
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
            /** @description Every error reply: 4xx and 5xx alike */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Missing or wrong bearer token (only when the server runs with TOOLEXEC_TOKEN); the WWW-Authenticate header says why (RFC 6750) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description With a token: the key lacks the scope `sessions:read` (`API_ERR_FORBIDDEN`), or would reach outside the sessions or workspaces it is limited to. Only when the server runs without TOOLEXEC_TOKEN: the Host is not a loopback name (localhost, 127.x.x.x or [::1]; `API_ERR_HOST_NOT_LOOPBACK`), or a web page on another site sent the request (an Origin neither loopback nor in TOOLEXEC_CORS_ORIGINS, or Sec-Fetch-Site: cross-site; `API_ERR_ORIGIN_NOT_ALLOWED`) */
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
            /** @description Missing or wrong bearer token (only when the server runs with TOOLEXEC_TOKEN); the WWW-Authenticate header says why (RFC 6750) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description With a token: the key lacks the scope `rules:read` (`API_ERR_FORBIDDEN`), or would reach outside the sessions or workspaces it is limited to. Only when the server runs without TOOLEXEC_TOKEN: the Host is not a loopback name (localhost, 127.x.x.x or [::1]; `API_ERR_HOST_NOT_LOOPBACK`), or a web page on another site sent the request (an Origin neither loopback nor in TOOLEXEC_CORS_ORIGINS, or Sec-Fetch-Site: cross-site; `API_ERR_ORIGIN_NOT_ALLOWED`) */
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
                /** @example rule_3e8a1c52-9d47-4b6f-a0e2-5c7b9d1f4a68 */
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
            /** @description Missing or wrong bearer token (only when the server runs with TOOLEXEC_TOKEN); the WWW-Authenticate header says why (RFC 6750) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description With a token: the key lacks the scope `rules:write` (`API_ERR_FORBIDDEN`), or would reach outside the sessions or workspaces it is limited to. Only when the server runs without TOOLEXEC_TOKEN: the Host is not a loopback name (localhost, 127.x.x.x or [::1]; `API_ERR_HOST_NOT_LOOPBACK`), or a web page on another site sent the request (an Origin neither loopback nor in TOOLEXEC_CORS_ORIGINS, or Sec-Fetch-Site: cross-site; `API_ERR_ORIGIN_NOT_ALLOWED`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Every error reply: 4xx and 5xx alike */
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
                /**
                 * @description The last event id the client has: the stream starts after it (0 when absent)
                 * @example 0
                 */
                after?: number;
            };
            header?: {
                /**
                 * @description The last event id the client has, as an EventSource sends it when it reconnects; wins over `after`
                 * @example 12
                 */
                "last-event-id"?: number;
            };
            path: {
                /** @example ses_0f4bd3a8-2c7e-4f0e-9a51-6d1f3c2b7e90 */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The event stream: frames whose `data:` is a `SessionEvent` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": components["schemas"]["SessionEvent"];
                };
            };
            /** @description Every error reply: 4xx and 5xx alike */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Every error reply: 4xx and 5xx alike */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description With a token: the key lacks the scope `events:read` (`API_ERR_FORBIDDEN`), or would reach outside the sessions or workspaces it is limited to. Only when the server runs without TOOLEXEC_TOKEN: the Host is not a loopback name (localhost, 127.x.x.x or [::1]; `API_ERR_HOST_NOT_LOOPBACK`), or a web page on another site sent the request (an Origin neither loopback nor in TOOLEXEC_CORS_ORIGINS, or Sec-Fetch-Site: cross-site; `API_ERR_ORIGIN_NOT_ALLOWED`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Every error reply: 4xx and 5xx alike */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Every error reply: 4xx and 5xx alike */
            406: {
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
                /** @example ses_0f4bd3a8-2c7e-4f0e-9a51-6d1f3c2b7e90 */
                sessionId: string;
                /** @example r1-tool-result-5d0b6e2a-7c1f-4e93-b8a4-0f2d9c6e1b73.txt */
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
            /** @description Missing or wrong bearer token (only when the server runs with TOOLEXEC_TOKEN); the WWW-Authenticate header says why (RFC 6750) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description With a token: the key lacks the scope `sessions:read` (`API_ERR_FORBIDDEN`), or would reach outside the sessions or workspaces it is limited to. Only when the server runs without TOOLEXEC_TOKEN: the Host is not a loopback name (localhost, 127.x.x.x or [::1]; `API_ERR_HOST_NOT_LOOPBACK`), or a web page on another site sent the request (an Origin neither loopback nor in TOOLEXEC_CORS_ORIGINS, or Sec-Fetch-Site: cross-site; `API_ERR_ORIGIN_NOT_ALLOWED`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Every error reply: 4xx and 5xx alike */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Every error reply: 4xx and 5xx alike */
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
            query?: {
                /**
                 * @description A model API's own shapes: Anthropic Messages, OpenAI Chat Completions, OpenAI Responses
                 * @example anthropic
                 */
                format?: "anthropic" | "openai-chat" | "openai-responses";
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
                        tools: components["schemas"]["ToolInfo"][];
                    } | components["schemas"]["AnthropicTool"][] | components["schemas"]["OpenAIChatTool"][] | components["schemas"]["OpenAIResponsesTool"][];
                };
            };
            /** @description Every error reply: 4xx and 5xx alike */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Missing or wrong bearer token (only when the server runs with TOOLEXEC_TOKEN); the WWW-Authenticate header says why (RFC 6750) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description With a token: the key lacks the scope `tools:read` (`API_ERR_FORBIDDEN`), or would reach outside the sessions or workspaces it is limited to. Only when the server runs without TOOLEXEC_TOKEN: the Host is not a loopback name (localhost, 127.x.x.x or [::1]; `API_ERR_HOST_NOT_LOOPBACK`), or a web page on another site sent the request (an Origin neither loopback nor in TOOLEXEC_CORS_ORIGINS, or Sec-Fetch-Site: cross-site; `API_ERR_ORIGIN_NOT_ALLOWED`) */
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
            /** @description Every error reply: 4xx and 5xx alike */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Missing or wrong bearer token (only when the server runs with TOOLEXEC_TOKEN); the WWW-Authenticate header says why (RFC 6750) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description With a token: the key lacks the scope `tools:write` (`API_ERR_FORBIDDEN`), or would reach outside the sessions or workspaces it is limited to. Only when the server runs without TOOLEXEC_TOKEN: the Host is not a loopback name (localhost, 127.x.x.x or [::1]; `API_ERR_HOST_NOT_LOOPBACK`), or a web page on another site sent the request (an Origin neither loopback nor in TOOLEXEC_CORS_ORIGINS, or Sec-Fetch-Site: cross-site; `API_ERR_ORIGIN_NOT_ALLOWED`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Every error reply: 4xx and 5xx alike */
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
            /** @description Every error reply: 4xx and 5xx alike */
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
                /** @example ticket_lookup */
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
            /** @description Missing or wrong bearer token (only when the server runs with TOOLEXEC_TOKEN); the WWW-Authenticate header says why (RFC 6750) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description With a token: the key lacks the scope `tools:write` (`API_ERR_FORBIDDEN`), or would reach outside the sessions or workspaces it is limited to. Only when the server runs without TOOLEXEC_TOKEN: the Host is not a loopback name (localhost, 127.x.x.x or [::1]; `API_ERR_HOST_NOT_LOOPBACK`), or a web page on another site sent the request (an Origin neither loopback nor in TOOLEXEC_CORS_ORIGINS, or Sec-Fetch-Site: cross-site; `API_ERR_ORIGIN_NOT_ALLOWED`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Every error reply: 4xx and 5xx alike */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Every error reply: 4xx and 5xx alike */
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
                        node: {
                            /** @description This server's name in its cluster (TOOLEXEC_NODE_ID) */
                            id: string;
                            /** @description Sessions whose lease this server holds (on PostgreSQL; 0 on SQLite, where it runs every session) */
                            sessions: number;
                        };
                    };
                };
            };
            /** @description Only when the server runs without TOOLEXEC_TOKEN: the Host is not a loopback name (localhost, 127.x.x.x or [::1]; `API_ERR_HOST_NOT_LOOPBACK`), or a web page on another site sent the request (an Origin neither loopback nor in TOOLEXEC_CORS_ORIGINS, or Sec-Fetch-Site: cross-site; `API_ERR_ORIGIN_NOT_ALLOWED`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Every error reply: 4xx and 5xx alike */
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
    getCluster: {
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
                        /** @description This server's id */
                        self: string;
                        backend: "sqlite" | "postgres";
                        /** @description Every registered server, this one too; on SQLite this one alone */
                        nodes: {
                            id: string;
                            /** @description Where the other servers reach it (TOOLEXEC_ADVERTISE_URL, else its listening address) */
                            url: string;
                            startedAt: string;
                            /** @description Its last heartbeat, by the database clock */
                            seenAt: string;
                            /** @description Its last heartbeat is within the lease time (TOOLEXEC_LEASE_MS) */
                            live: boolean;
                        }[];
                    };
                };
            };
            /** @description Missing or wrong bearer token (only when the server runs with TOOLEXEC_TOKEN); the WWW-Authenticate header says why (RFC 6750) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description With a token: the key lacks the scope `cluster:read` (`API_ERR_FORBIDDEN`), or would reach outside the sessions or workspaces it is limited to. Only when the server runs without TOOLEXEC_TOKEN: the Host is not a loopback name (localhost, 127.x.x.x or [::1]; `API_ERR_HOST_NOT_LOOPBACK`), or a web page on another site sent the request (an Origin neither loopback nor in TOOLEXEC_CORS_ORIGINS, or Sec-Fetch-Site: cross-site; `API_ERR_ORIGIN_NOT_ALLOWED`) */
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
    listKeys: {
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
                    "application/json": components["schemas"]["ApiKeyList"];
                };
            };
            /** @description Missing or wrong bearer token (only when the server runs with TOOLEXEC_TOKEN); the WWW-Authenticate header says why (RFC 6750) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description With a token: the key lacks the scope `keys:read` (`API_ERR_FORBIDDEN`), or would reach outside the sessions or workspaces it is limited to. Only when the server runs without TOOLEXEC_TOKEN: the Host is not a loopback name (localhost, 127.x.x.x or [::1]; `API_ERR_HOST_NOT_LOOPBACK`), or a web page on another site sent the request (an Origin neither loopback nor in TOOLEXEC_CORS_ORIGINS, or Sec-Fetch-Site: cross-site; `API_ERR_ORIGIN_NOT_ALLOWED`) */
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
    createKey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description Exactly one of `role` and `scopes`. A key never gets a scope, a session, a workspace or a time its minting key lacks */
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateKeyBody"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatedKey"];
                };
            };
            /** @description Every error reply: 4xx and 5xx alike */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Missing or wrong bearer token (only when the server runs with TOOLEXEC_TOKEN); the WWW-Authenticate header says why (RFC 6750) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description With a token: the key lacks the scope `keys:write` (`API_ERR_FORBIDDEN`), or would reach outside the sessions or workspaces it is limited to. Only when the server runs without TOOLEXEC_TOKEN: the Host is not a loopback name (localhost, 127.x.x.x or [::1]; `API_ERR_HOST_NOT_LOOPBACK`), or a web page on another site sent the request (an Origin neither loopback nor in TOOLEXEC_CORS_ORIGINS, or Sec-Fetch-Site: cross-site; `API_ERR_ORIGIN_NOT_ALLOWED`) */
            403: {
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
            /** @description Every error reply: 4xx and 5xx alike */
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
    revokeKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example key_5b1e7c2a-8d4f-4a36-9e0b-7c3d2f1a6e84 */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Revoked */
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
            /** @description Missing or wrong bearer token (only when the server runs with TOOLEXEC_TOKEN); the WWW-Authenticate header says why (RFC 6750) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description With a token: the key lacks the scope `keys:write` (`API_ERR_FORBIDDEN`), or would reach outside the sessions or workspaces it is limited to. Only when the server runs without TOOLEXEC_TOKEN: the Host is not a loopback name (localhost, 127.x.x.x or [::1]; `API_ERR_HOST_NOT_LOOPBACK`), or a web page on another site sent the request (an Origin neither loopback nor in TOOLEXEC_CORS_ORIGINS, or Sec-Fetch-Site: cross-site; `API_ERR_ORIGIN_NOT_ALLOWED`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Every error reply: 4xx and 5xx alike */
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
    whoAmI: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The principal a request carries, as a client shows it (the console shows the name and role and offers only what the scopes allow) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Caller"];
                };
            };
            /** @description Missing or wrong bearer token (only when the server runs with TOOLEXEC_TOKEN); the WWW-Authenticate header says why (RFC 6750) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Only when the server runs without TOOLEXEC_TOKEN: the Host is not a loopback name (localhost, 127.x.x.x or [::1]; `API_ERR_HOST_NOT_LOOPBACK`), or a web page on another site sent the request (an Origin neither loopback nor in TOOLEXEC_CORS_ORIGINS, or Sec-Fetch-Site: cross-site; `API_ERR_ORIGIN_NOT_ALLOWED`) */
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
    listAudit: {
        parameters: {
            query?: {
                /**
                 * @description Entries after this seq (the `next` of the previous page); 0 when absent
                 * @example 120
                 */
                after?: number;
                /**
                 * @description Entries per page, 1 to 1000 (100 when absent)
                 * @example 50
                 */
                limit?: number;
                /** @example approval.answered */
                kind?: "approval.answered" | "approval.decided" | "key.minted" | "key.revoked" | "rule.removed" | "tool.added" | "tool.removed" | "session.deleted";
                /**
                 * @description An actor id: a key id, `admin`, `local` or `server`
                 * @example key_5b1e7c2a-8d4f-4a36-9e0b-7c3d2f1a6e84
                 */
                actor?: string;
                /** @example ses_0f4bd3a8-2c7e-4f0e-9a51-6d1f3c2b7e90 */
                sessionId?: string;
                /**
                 * @description Entries at or after this time
                 * @example 2026-12-05T00:00:00.000Z
                 */
                since?: string;
                /**
                 * @description Entries before this time
                 * @example 2026-12-06T00:00:00.000Z
                 */
                until?: string;
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
                        entries: {
                            /** @description Its place in the log: 1, 2, 3, ... with no gaps */
                            seq: number;
                            /** @description When the change was made (ISO 8601) */
                            at: string;
                            /** @description What was done */
                            kind: "approval.answered" | "approval.decided" | "key.minted" | "key.revoked" | "rule.removed" | "tool.added" | "tool.removed" | "session.deleted";
                            /** @description A key (its id and name), `admin` (TOOLEXEC_TOKEN), `local` (no token), or `server` with the reason as its name */
                            actor: {
                                id: string;
                                name: string;
                            };
                            /** @description The session it concerns, which may since have been deleted */
                            sessionId: string | null;
                            /** @description What the kind of entry records (see docs/api.md) */
                            detail: {
                                [key: string]: unknown;
                            };
                            /** @description The hash of the entry before (64 zeros for the first) */
                            prevHash: string;
                            /** @description SHA-256 (hex) of prevHash, a newline, seq, a newline and the entry's canonical JSON */
                            hash: string;
                        }[];
                        /** @description The `after` of the next page; null when this page reached the end of the log */
                        next: number | null;
                    };
                };
            };
            /** @description Every error reply: 4xx and 5xx alike */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Missing or wrong bearer token (only when the server runs with TOOLEXEC_TOKEN); the WWW-Authenticate header says why (RFC 6750) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description With a token: the key lacks the scope `audit:read` (`API_ERR_FORBIDDEN`), or would reach outside the sessions or workspaces it is limited to. Only when the server runs without TOOLEXEC_TOKEN: the Host is not a loopback name (localhost, 127.x.x.x or [::1]; `API_ERR_HOST_NOT_LOOPBACK`), or a web page on another site sent the request (an Origin neither loopback nor in TOOLEXEC_CORS_ORIGINS, or Sec-Fetch-Site: cross-site; `API_ERR_ORIGIN_NOT_ALLOWED`) */
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
    createSessionLink: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example ses_0f4bd3a8-2c7e-4f0e-9a51-6d1f3c2b7e90 */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description `watch`: read the session and stream its events; `decide`: that, and decide its approvals */
                    purpose: "watch" | "decide";
                    /** @description How long the link works: 900 s (15 min) when absent, at most 24 h, never past the minting key's expiry */
                    expiresInSeconds?: number;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description A token for one session and one purpose that expires; kept, like a key, only as a hash */
                        link: {
                            /** @description Names the link for DELETE /sessions/{id}/links/{linkId}; not a secret */
                            id: string;
                            sessionId: string;
                            /** @description `watch`: read the session and stream its events; `decide`: that, and decide its approvals */
                            purpose: "watch" | "decide";
                            expiresAt: string;
                            createdAt: string;
                            /** @description The id of the key that minted it, or `admin` for TOOLEXEC_TOKEN */
                            createdBy: string;
                        };
                        /** @description The bearer token (`txk_...`), shown in this reply only */
                        secret: string;
                        /** @description The console's page of the session with the token: append it to the server's address. The console keeps the token and drops it from the address */
                        consolePath: string;
                    };
                };
            };
            /** @description Every error reply: 4xx and 5xx alike */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Missing or wrong bearer token (only when the server runs with TOOLEXEC_TOKEN); the WWW-Authenticate header says why (RFC 6750) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description With a token: the key lacks the scope `links:write` (`API_ERR_FORBIDDEN`), or would reach outside the sessions or workspaces it is limited to. Only when the server runs without TOOLEXEC_TOKEN: the Host is not a loopback name (localhost, 127.x.x.x or [::1]; `API_ERR_HOST_NOT_LOOPBACK`), or a web page on another site sent the request (an Origin neither loopback nor in TOOLEXEC_CORS_ORIGINS, or Sec-Fetch-Site: cross-site; `API_ERR_ORIGIN_NOT_ALLOWED`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Every error reply: 4xx and 5xx alike */
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
            /** @description Every error reply: 4xx and 5xx alike */
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
    revokeSessionLink: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example ses_0f4bd3a8-2c7e-4f0e-9a51-6d1f3c2b7e90 */
                id: string;
                /** @example link_0c6e2f4a-7b1d-4e8a-9c3f-5d2b1a7e6f90 */
                linkId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Revoked */
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
            /** @description Missing or wrong bearer token (only when the server runs with TOOLEXEC_TOKEN); the WWW-Authenticate header says why (RFC 6750) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description With a token: the key lacks the scope `links:write` (`API_ERR_FORBIDDEN`), or would reach outside the sessions or workspaces it is limited to. Only when the server runs without TOOLEXEC_TOKEN: the Host is not a loopback name (localhost, 127.x.x.x or [::1]; `API_ERR_HOST_NOT_LOOPBACK`), or a web page on another site sent the request (an Origin neither loopback nor in TOOLEXEC_CORS_ORIGINS, or Sec-Fetch-Site: cross-site; `API_ERR_ORIGIN_NOT_ALLOWED`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Every error reply: 4xx and 5xx alike */
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
    getProtectedResourceMetadata: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OAuth 2.0 protected resource metadata (RFC 9728), as the MCP authorization specification asks */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProtectedResourceMetadata"];
                };
            };
            /** @description Only when the server runs without TOOLEXEC_TOKEN: the Host is not a loopback name (localhost, 127.x.x.x or [::1]; `API_ERR_HOST_NOT_LOOPBACK`), or a web page on another site sent the request (an Origin neither loopback nor in TOOLEXEC_CORS_ORIGINS, or Sec-Fetch-Site: cross-site; `API_ERR_ORIGIN_NOT_ALLOWED`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorReply"];
                };
            };
            /** @description Every error reply: 4xx and 5xx alike */
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
}
