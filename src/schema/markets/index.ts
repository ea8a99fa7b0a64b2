// Implemented by the markets domain.
export {};
