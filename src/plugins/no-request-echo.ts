import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';

/**
 * Yoga answers a request body that is not JSON with the parser's own message in
 * `extensions.originalError`, and that message quotes the body (a token or a secret pasted into it
 * included). In production the answer keeps Yoga's message, code and status, never the quote.
 */
export function useNoRequestEcho(): Plugin {
  return {
    onRequestParse({ requestParser, setRequestParser }) {
      if (!requestParser) return;
      setRequestParser(async (request) => {
        try {
          return await requestParser(request);
        } catch (error) {
          if (!(error instanceof GraphQLError) || error.extensions['originalError'] === undefined) throw error;
          // Kept, without the quote: Yoga answers 400 (not 200) by its presence.
          const extensions = { ...error.extensions, originalError: { name: 'SyntaxError', message: 'The request body is not valid JSON.' } };
          throw new GraphQLError(error.message, { extensions });
        }
      });
    },
  };
}
