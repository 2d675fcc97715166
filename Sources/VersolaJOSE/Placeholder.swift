public enum VersolaJOSEPlaceholder {}
