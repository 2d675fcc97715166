// Applications import `Versola` alone: the error hierarchy, the HTTP messages and the
// injected clock, transport and random source come with it.
@_exported import VersolaHTTP
