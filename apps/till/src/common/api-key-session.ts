const storageKey = 'once:api-key';

/** The API key of this browser tab: kept in session storage, so it leaves with the tab and is never written to disk. */
export const readApiKey = (): string | undefined => sessionStorage.getItem(storageKey) ?? undefined;

export const saveApiKey = (apiKey: string): void => sessionStorage.setItem(storageKey, apiKey);

export const forgetApiKey = (): void => sessionStorage.removeItem(storageKey);

/**
 * A short, stable name for the key (hex of its SHA-256), to keep each key's queue and state apart in the browser's
 * storage without storing the key itself.
 *
 * @example
 * const storageName = await apiKeyFingerprint(apiKey); // '3f0c…' (16 hex digits)
 */
export const apiKeyFingerprint = async (apiKey: string): Promise<string> => {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(apiKey));
  return [...new Uint8Array(digest)]
    .slice(0, 8)
    .map((byte) => byte.toString(16).padStart(2, '0'))
    .join('');
};
