// Scope rules: `*.read` grants every `X.read`, `*.write` every `X.write`; `embed` grants only the
// operations that list it (no wildcard covers it). A request is allowed an operation's scope when
// both the token and the key pair's roles grant it (effective scopes = their intersection).

export function grants(granted: readonly string[], scope: string): boolean {
  for (const g of granted) {
    if (g === scope) return true;
    if (g === '*.read' && scope.endsWith('.read')) return true;
    if (g === '*.write' && scope.endsWith('.write')) return true;
  }
  return false;
}

/** The first of the operation's alternative scopes granted by both sets, or null. */
export function allowedScope(required: readonly string[], tokenScopes: readonly string[], roleScopes: readonly string[]): string | null {
  return required.find((scope) => grants(tokenScopes, scope) && grants(roleScopes, scope)) ?? null;
}

const roleScopeCache = new WeakMap<readonly string[], { roles: object; changeCount: number; scopes: string[] }>();

/**
 * Every scope the given roles grant (an unknown role id grants nothing). Asked on every request, so
 * it is remembered per role list until the roles collection changes.
 */
export function roleScopesOf(roles: { get(id: string): { scopes: string[] } | undefined; changeCount?: number }, roleIds: readonly string[]): string[] {
  const changeCount = roles.changeCount ?? -1;
  const cached = roleScopeCache.get(roleIds);
  if (cached && cached.roles === roles && cached.changeCount === changeCount && changeCount >= 0) return cached.scopes;
  const scopes = roleIds.flatMap((id) => roles.get(id)?.scopes ?? []);
  roleScopeCache.set(roleIds, { roles, changeCount, scopes });
  return scopes;
}
