/**
 * What a request to a Kubernetes API server fails with. Every failure carries the process exit code the CLI
 * convention gives it (1 for a failure, 2 for a usage mistake), so a command, the TUI or a test helper can end with
 * it as it is.
 */
export class ClientError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode = 1) {
    super(message);
    this.name = 'ClientError';
    this.exitCode = exitCode;
  }
}

/** The body of a Kubernetes `Status` failure, as far as a client needs it. */
export interface StatusBody {
  kind?: string;
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
  details?: { name?: string; group?: string; kind?: string; retryAfterSeconds?: number };
}

/** A non-2xx answer from the API server. */
export class ApiError extends ClientError {
  readonly status: number;
  readonly reason: string;
  readonly body: StatusBody | undefined;
  constructor(status: number, body: StatusBody | undefined, fallbackText: string) {
    const reason = body?.reason || reasonForStatus(status);
    const message = body?.message || fallbackText.trim() || `the server responded with status ${status}`;
    super(message, 1);
    this.name = 'ApiError';
    this.status = status;
    this.reason = reason;
    this.body = body;
  }

  /** kubectl's one-line rendering: `Error from server (NotFound): workspaces.tenancy.kcp.io "a" not found`. */
  oneLine(): string {
    return `Error from server (${this.reason}): ${this.message}`;
  }

  get notFound(): boolean {
    return this.status === 404;
  }

  get forbidden(): boolean {
    return this.status === 403;
  }

  get alreadyExists(): boolean {
    return this.status === 409 && this.reason === 'AlreadyExists';
  }
}

/** The server could not be reached at all (refused, DNS, TLS). */
export class ConnectionError extends ClientError {
  constructor(cause: string) {
    super(`Unable to connect to the server: ${cause}`, 1);
    this.name = 'ConnectionError';
  }
}

/** The reasons apimachinery derives from a bare status code when the body is not a Status. */
function reasonForStatus(status: number): string {
  switch (status) {
    case 400:
      return 'BadRequest';
    case 401:
      return 'Unauthorized';
    case 403:
      return 'Forbidden';
    case 404:
      return 'NotFound';
    case 405:
      return 'MethodNotAllowed';
    case 409:
      return 'Conflict';
    case 410:
      return 'Gone';
    case 422:
      return 'Invalid';
    case 429:
      return 'TooManyRequests';
    case 500:
      return 'InternalError';
    case 503:
      return 'ServiceUnavailable';
    case 504:
      return 'Timeout';
    default:
      return 'Unknown';
  }
}
