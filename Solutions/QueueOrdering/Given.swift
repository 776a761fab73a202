@_exported import QueueOrderingGiven
