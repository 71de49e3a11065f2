"""The profile side of advisor: find a capture (``discovery``), read it with the profiler plugin's converters
(``convert``) and the raw trace (``trace``), and summarise it as the plain data of ``facts`` (``loader.load_profile``).
``capture`` records new captures. Importing this package loads nothing: the converters and protobuf load only with
the modules that need them."""
