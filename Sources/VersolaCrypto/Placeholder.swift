public enum VersolaCryptoPlaceholder {}
