import type { Pool } from 'pg';

/** An endpoint as its worker needs it. */
export interface EndpointRow {
  readonly endpointId: string;
  readonly tenantId: string;
  readonly url: string;
  readonly status: 'enabled' | 'disabled' | 'deleted';
  /** The current secret first, then the previous one while its grace period lasts. */
  readonly secrets: readonly string[];
  readonly failingSince: Date | null;
}

/**
 * Reads one endpoint for delivery.
 * @example const endpoint = await loadEndpoint(pool, endpointId);
 */
export const loadEndpoint = async (pool: Pool, endpointId: string): Promise<EndpointRow | undefined> => {
  const result = await pool.query<{
    tenant_id: string;
    url: string;
    status: EndpointRow['status'];
    secret: string;
    previous_secret: string | null;
    previous_valid: boolean;
    failing_since: Date | null;
  }>(
    `SELECT tenant_id, url, status, secret, previous_secret, failing_since,
            coalesce(previous_secret_expires_at > now(), false) AS previous_valid
       FROM webhook_endpoints WHERE endpoint_id = $1`,
    [endpointId],
  );
  const row = result.rows[0];
  if (!row) return undefined;
  return {
    endpointId,
    tenantId: row.tenant_id,
    url: row.url,
    status: row.status,
    secrets: row.previous_secret && row.previous_valid ? [row.secret, row.previous_secret] : [row.secret],
    failingSince: row.failing_since,
  };
};
