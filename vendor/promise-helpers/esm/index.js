const kFakePromise = Symbol.for('@whatwg-node/promise-helpers/FakePromise');
export function isPromise(value) {
    const maybePromise = value;
    return typeof maybePromise?.then === 'function';
}
export function isActualPromise(value) {
    const maybePromise = value;
    return maybePromise && maybePromise.then && maybePromise.catch && maybePromise.finally;
}
export function handleMaybePromise(inputFactory, outputSuccessFactory, outputErrorFactory, finallyFactory) {
    // When a finally callback is present, keep the fake-promise chain so cleanup
    // semantics stay identical (including async finally and success/error throws).
    if (finallyFactory) {
        let result$ = fakePromise().then(inputFactory).then(outputSuccessFactory, outputErrorFactory);
        result$ = result$.finally(finallyFactory);
        return unfakePromise(result$);
    }
    // Sync-friendly path: call the factories directly when the input is not a
    // thenable, so hot callers avoid allocating temporary fake-promise wrappers.
    // onError still only handles inputFactory failures / rejected inputs, and
    // thenable-detection failures (e.g. a throwing `then` getter), matching the
    // previous fake-promise chain. Success-factory throws are not routed to
    // onError (same as Promise#then(success, onError)).
    let input;
    let inputIsPromise;
    try {
        // Match fakePromise().then(inputFactory): the resolved undefined is passed
        // through, so factories that inspect arguments.length still see one argument.
        input = inputFactory(undefined);
        // Keep thenable detection inside this boundary: accessing `then` can throw.
        inputIsPromise = isPromise(input);
    }
    catch (err) {
        if (!outputErrorFactory) {
            throw err;
        }
        const output = outputErrorFactory(err);
        return isPromise(output) ? unfakePromise(fakePromise(output)) : output;
    }
    if (!inputIsPromise) {
        const output = outputSuccessFactory(input);
        return isPromise(output) ? unfakePromise(fakePromise(output)) : output;
    }
    return unfakePromise(fakePromise(input).then(outputSuccessFactory, outputErrorFactory));
}
/**
 * Resolved fake-promise instances share one hidden class: methods live on the
 * prototype instead of as own properties of a fresh object literal each call.
 */
class FakePromise {
    __fakePromiseValue;
    // Brand checked by unfakePromise / isFakePromise
    [kFakePromise];
    constructor(value) {
        this.__fakePromiseValue = value;
        this[kFakePromise] = 'resolved';
    }
    then(onfulfilled, _onrejected) {
        if (onfulfilled) {
            try {
                return fakePromise(onfulfilled(this.__fakePromiseValue));
            }
            catch (err) {
                return fakeRejectPromise(err);
            }
        }
        return this;
    }
    catch(_onrejected) {
        return this;
    }
    finally(onfinally) {
        if (onfinally) {
            try {
                const value = this.__fakePromiseValue;
                return fakePromise(onfinally()).then(() => value, () => value);
            }
            catch (err) {
                return fakeRejectPromise(err);
            }
        }
        return this;
    }
    get [Symbol.toStringTag]() {
        return 'Promise';
    }
}
/**
 * Rejected fake-promise instances - same shared-prototype rationale as
 * {@link FakePromise}.
 */
class FakeRejectPromise {
    __fakeRejectError;
    [kFakePromise];
    constructor(error) {
        this.__fakeRejectError = error;
        this[kFakePromise] = 'rejected';
    }
    then(_onfulfilled, onrejected) {
        if (onrejected) {
            try {
                return fakePromise(onrejected(this.__fakeRejectError));
            }
            catch (err) {
                return fakeRejectPromise(err);
            }
        }
        return this;
    }
    catch(onrejected) {
        if (onrejected) {
            try {
                return fakePromise(onrejected(this.__fakeRejectError));
            }
            catch (err) {
                return fakeRejectPromise(err);
            }
        }
        return this;
    }
    finally(onfinally) {
        if (onfinally) {
            try {
                onfinally();
            }
            catch (err) {
                return fakeRejectPromise(err);
            }
        }
        return this;
    }
    get [Symbol.toStringTag]() {
        return 'Promise';
    }
}
/**
 * Thin wrapper around a foreign thenable so method shapes stay on a shared
 * prototype (same V8 rationale as {@link FakePromise}).
 */
class ThenableFakePromise {
    _thenable;
    constructor(thenable) {
        this._thenable = thenable;
    }
    then(onfulfilled, onrejected) {
        return fakePromise(this._thenable.then(onfulfilled, onrejected));
    }
    catch(onrejected) {
        return fakePromise(this._thenable.then(res => res, onrejected));
    }
    finally(onfinally) {
        return fakePromise(onfinally ? promiseLikeFinally(this._thenable, onfinally) : this._thenable);
    }
    get [Symbol.toStringTag]() {
        return 'Promise';
    }
}
export function fakePromise(value) {
    if (value && isActualPromise(value)) {
        return value;
    }
    if (isPromise(value)) {
        return new ThenableFakePromise(value);
    }
    // Avoid `new Promise` for already-resolved values; shared prototype keeps a
    // stable V8 hidden class across hot sync call sites.
    return new FakePromise(value);
}
export function createDeferredPromise() {
    if (Promise.withResolvers) {
        return Promise.withResolvers();
    }
    let resolveFn;
    let rejectFn;
    const promise = new Promise(function deferredPromiseExecutor(resolve, reject) {
        resolveFn = resolve;
        rejectFn = reject;
    });
    return {
        promise,
        get resolve() {
            return resolveFn;
        },
        get reject() {
            return rejectFn;
        },
    };
}
export { iterateAsync as iterateAsyncVoid };
export function iterateAsync(iterable, callback, results) {
    if (iterable?.length === 0) {
        return;
    }
    const iterator = iterable[Symbol.iterator]();
    let index = 0;
    function iterate() {
        const { done: endOfIterator, value } = iterator.next();
        if (endOfIterator) {
            return;
        }
        let endedEarly = false;
        function endEarly() {
            endedEarly = true;
        }
        return handleMaybePromise(function handleCallback() {
            return callback(value, endEarly, index++);
        }, function handleCallbackResult(result) {
            if (result) {
                results?.push(result);
            }
            if (endedEarly) {
                return;
            }
            return iterate();
        });
    }
    return iterate();
}
export function fakeRejectPromise(error) {
    return new FakeRejectPromise(error);
}
/**
 * Given an AsyncIterable and a callback function, return an AsyncIterator
 * which produces values mapped via calling the callback function.
 */
export function mapAsyncIterator(iterator, onNext, onError, onEnd) {
    if (Symbol.asyncIterator in iterator) {
        iterator = iterator[Symbol.asyncIterator]();
    }
    let $return;
    let abruptClose;
    let onEndWithValue;
    if (onEnd) {
        let onEndWithValueResult; /** R in onEndWithValue */
        onEndWithValue = value => {
            onEndWithValueResult ||= handleMaybePromise(onEnd, () => value, () => value);
            return onEndWithValueResult;
        };
    }
    if (typeof iterator.return === 'function') {
        $return = iterator.return;
        abruptClose = (error) => {
            const rethrow = () => {
                throw error;
            };
            return $return.call(iterator).then(rethrow, rethrow);
        };
    }
    function mapResult(result) {
        if (result.done) {
            return onEndWithValue ? onEndWithValue(result) : result;
        }
        return handleMaybePromise(() => result.value, value => handleMaybePromise(() => onNext(value), iteratorResult, abruptClose));
    }
    let mapReject;
    if (onError) {
        let onErrorResult;
        // Capture rejectCallback to ensure it cannot be null.
        const reject = onError;
        mapReject = (error) => {
            onErrorResult ||= handleMaybePromise(() => error, error => handleMaybePromise(() => reject(error), iteratorResult, abruptClose));
            return onErrorResult;
        };
    }
    return {
        next() {
            return iterator.next().then(mapResult, mapReject);
        },
        return() {
            const res$ = $return
                ? $return.call(iterator).then(mapResult, mapReject)
                : fakePromise({ value: undefined, done: true });
            return onEndWithValue ? res$.then(onEndWithValue) : res$;
        },
        throw(error) {
            if (typeof iterator.throw === 'function') {
                return iterator.throw(error).then(mapResult, mapReject);
            }
            if (abruptClose) {
                return abruptClose(error);
            }
            return fakeRejectPromise(error);
        },
        [Symbol.asyncIterator]() {
            return this;
        },
    };
}
function iteratorResult(value) {
    return { value, done: false };
}
function isFakePromise(value) {
    return value?.[kFakePromise] === 'resolved';
}
function isFakeRejectPromise(value) {
    return value?.[kFakePromise] === 'rejected';
}
export function promiseLikeFinally(value, onFinally) {
    if ('finally' in value) {
        return value.finally(onFinally);
    }
    return value.then(res => {
        const finallyRes = onFinally();
        return isPromise(finallyRes) ? finallyRes.then(() => res) : res;
    }, err => {
        const finallyRes = onFinally();
        if (isPromise(finallyRes)) {
            return finallyRes.then(() => {
                throw err;
            });
        }
        else {
            throw err;
        }
    });
}
export function unfakePromise(promise) {
    if (isFakePromise(promise)) {
        return promise.__fakePromiseValue;
    }
    if (isFakeRejectPromise(promise)) {
        throw promise.__fakeRejectError;
    }
    return promise;
}

// Added by this repository (vendor/README.md): 1.x's deprecated alias, which @envelop/core 5 and
// @graphql-tools/utils 10–11 still re-export, removed in 2.0.
export function mapMaybePromise(input, onSuccess, onError) {
    return handleMaybePromise(() => input, onSuccess, onError);
}
