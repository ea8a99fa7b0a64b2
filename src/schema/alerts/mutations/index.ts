import './user-errors.js';
import './common.js';
import './channels.js';
import './push-devices.js';
import './subscriptions.js';
import './inbox.js';
import './send.js';
