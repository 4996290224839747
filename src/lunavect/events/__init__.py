"""The stream of state changes (`lunavect events`, the web panel's `/api/transitions`): one record per change
of a listed session's state, this machine's and every other host's in the sync set, each with a monotonic
number so a consumer resumes exactly where it stopped (`log`), in the shape `transition.schema.json` promises.
"""
