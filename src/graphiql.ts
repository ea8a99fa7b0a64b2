import { renderGraphiQL as renderFromCdn, type GraphiQLOptions } from 'graphql-yoga';

/**
 * GraphiQL's page. Its scripts and styles come from `@graphql-yoga/render-graphiql` (an optional
 * dependency, 18 MB on disk, loaded on the first page view only), so the page works offline. The image
 * leaves that package out (`npm ci --omit=optional`: production never serves GraphiQL); a development
 * process started from such an install still serves the page, with Yoga's own renderer and its CDN.
 */
type OfflineRenderer = typeof import('@graphql-yoga/render-graphiql');

export async function renderGraphiQL(options: GraphiQLOptions, load: () => Promise<OfflineRenderer> = () => import('@graphql-yoga/render-graphiql')): Promise<string> {
  let offline: OfflineRenderer | undefined;
  try {
    offline = await load();
  } catch (error) {
    if ((error as { code?: string }).code !== 'ERR_MODULE_NOT_FOUND') throw error;
  }
  return offline ? offline.renderGraphiQL(options) : renderFromCdn(options);
}
