"""kombu's filesystem transport with atomic writes: the broker of the embedded default.

kombu writes a message straight into its final file name, so a worker polling the folder can move and
read a file that is still empty; the JSON decode error then stops the worker ("Unrecoverable error").
Here a message is written under a temporary name that the reader skips, then renamed into place, which
is atomic within one folder.
"""

from __future__ import annotations

import os
import uuid
from time import monotonic

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps


class Channel(filesystem.Channel):
    def _put(self, queue, payload, **kwargs):
        name = f"{round(monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg"
        final = os.path.join(self.data_folder_out, name)
        # No "." before the queue name, so `_get` (which matches "<stamp>.<queue>.msg") never takes it.
        partial = os.path.join(self.data_folder_out, f"partial-{uuid.uuid4().hex}")
        try:
            with open(partial, "wb") as handle:
                handle.write(str_to_bytes(dumps(payload)))
            os.replace(partial, final)
        except OSError as exc:
            raise ChannelError(f"Cannot add file {final!r} to directory") from exc


class Transport(filesystem.Transport):
    Channel = Channel
