/**
 * Code that loads on first use. VS Code needs a provider (hover, completion, code actions, …) registered at
 * activation, but not its code: `lazyProvider` gives it an object whose methods import the provider's file on the
 * first request and then call the real one. The build gives each `import()` a file of its own (scripts/bundles.mjs),
 * so a provider registered this way adds a few bytes to activation, whatever its size:
 *
 *   const hovers = once(() => import('./editor/inventoryHovers.js').then((m) => new m.InventoryHovers(inventory)));
 *   vscode.languages.registerHoverProvider(selector, lazyProvider(hovers, ['provideHover']));
 *
 * Only the methods named are offered: VS Code looks at which optional methods a provider has (resolveCompletionItem,
 * …), so a provider must not seem to have one it lacks.
 */

/** The result of `load`, loaded on the first call and shared by the later ones; a failed load is tried again. */
export function once<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    loading ??= load().catch((e: unknown) => {
      loading = undefined;
      throw e;
    });
    return loading;
  };
}

/** The named methods of T, each answering once T has loaded. */
export type LazyMethods<T, K extends keyof T> = {
  [P in K]: T[P] extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : never;
};

/** An object with `methods` of the provider `load` gives, which load it on the first call (see above). */
export function lazyProvider<T extends object, K extends keyof T>(load: () => Promise<T>, methods: readonly K[]): LazyMethods<T, K> {
  const get = once(load);
  const out = {} as Record<K, unknown>;
  for (const name of methods) {
    out[name] = async (...args: unknown[]) => {
      const provider = await get();
      return (provider[name] as (...a: unknown[]) => unknown).apply(provider, args);
    };
  }
  return out as LazyMethods<T, K>;
}
