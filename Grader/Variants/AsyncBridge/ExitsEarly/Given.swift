@_exported import AsyncBridgeGiven
