// Implemented by the assets domain.
export {};
