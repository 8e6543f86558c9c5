import type { Pool } from 'pg';
import { UnsealError } from '@once/webhooks';
import type { SecretsKeyring } from '@once/webhooks';

/** An endpoint as its worker needs it. */
export interface EndpointRow {
  readonly endpointId: string;
  readonly tenantId: string;
  readonly url: string;
  readonly status: 'enabled' | 'disabled' | 'deleted';
  /**
   * The current secret first, then the previous one while its grace period lasts, unsealed; or why they cannot be
   * (a key no longer in `ONCE_SECRETS_KEY`): each delivery then fails with that reason, and nothing goes unsigned.
   */
  readonly secrets: { readonly ok: true; readonly secrets: readonly string[] } | UnsealedSecretsRefusal;
  readonly failingSince: Date | null;
}

/** Why an endpoint's secrets could not be unsealed. */
export interface UnsealedSecretsRefusal {
  readonly ok: false;
  readonly reason: string;
}

const unsealEach = (keyring: SecretsKeyring, sealed: readonly string[]): EndpointRow['secrets'] => {
  try {
    return { ok: true, secrets: sealed.map((envelope) => keyring.unseal(envelope)) };
  } catch (error) {
    if (error instanceof UnsealError) return { ok: false, reason: error.message };
    throw error;
  }
};

/**
 * Reads one endpoint for delivery, its secrets unsealed (the table keeps them sealed, as the log does).
 * @example const endpoint = await loadEndpoint(pool, keyring, endpointId);
 */
export const loadEndpoint = async (
  pool: Pool,
  keyring: SecretsKeyring,
  endpointId: string,
): Promise<EndpointRow | undefined> => {
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
    secrets: unsealEach(
      keyring,
      row.previous_secret && row.previous_valid ? [row.secret, row.previous_secret] : [row.secret],
    ),
    failingSince: row.failing_since,
  };
};
