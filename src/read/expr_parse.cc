// The expression tree's constructors, printing and the recursive-descent parser of the CLI syntax.
// Hand-written: the grammar is a dozen rules and the errors must point at a character, which a
// parser generator would not make simpler.
#include <cctype>
#include <unordered_set>

#include "rap/read/expr.h"

namespace rap::read {

ExprPtr MakeCompare(std::string column, CompareOp op, Literal value) {
  auto e = std::make_shared<Expr>();
  e->kind = Expr::Kind::kCompare;
  e->column = std::move(column);
  e->op = op;
  e->values = {std::move(value)};
  return e;
}

ExprPtr MakeIn(std::string column, std::vector<Literal> values, bool negated) {
  auto e = std::make_shared<Expr>();
  e->kind = Expr::Kind::kIn;
  e->column = std::move(column);
  e->values = std::move(values);
  e->negated = negated;
  return e;
}

ExprPtr MakeIsNull(std::string column, bool negated) {
  auto e = std::make_shared<Expr>();
  e->kind = Expr::Kind::kIsNull;
  e->column = std::move(column);
  e->negated = negated;
  return e;
}

static ExprPtr MakeNode(Expr::Kind kind, std::vector<ExprPtr> children) {
  auto e = std::make_shared<Expr>();
  e->kind = kind;
  e->children = std::move(children);
  return e;
}

ExprPtr MakeAnd(ExprPtr a, ExprPtr b) { return MakeNode(Expr::Kind::kAnd, {std::move(a), std::move(b)}); }
ExprPtr MakeOr(ExprPtr a, ExprPtr b) { return MakeNode(Expr::Kind::kOr, {std::move(a), std::move(b)}); }
ExprPtr MakeNot(ExprPtr a) { return MakeNode(Expr::Kind::kNot, {std::move(a)}); }
Literal NumberLit(std::string text) { return Literal{Literal::Kind::kNumber, std::move(text)}; }
Literal StringLit(std::string text) { return Literal{Literal::Kind::kString, std::move(text)}; }

namespace {

const char* OpText(CompareOp op) {
  switch (op) {
    case CompareOp::kEq: return "=";
    case CompareOp::kNe: return "!=";
    case CompareOp::kLt: return "<";
    case CompareOp::kLe: return "<=";
    case CompareOp::kGt: return ">";
    case CompareOp::kGe: return ">=";
  }
  return "?";
}

bool IsIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$'; }

std::string QuoteColumn(const std::string& name) {
  bool plain = !name.empty() && IsIdentStart(name[0]);
  for (char c : name) plain = plain && IsIdentChar(c);
  static const std::unordered_set<std::string> kKeywords = {"and", "or", "not", "in", "is", "null",
                                                            "true", "false", "date", "timestamp"};
  std::string lower;
  for (char c : name) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  if (plain && !kKeywords.count(lower)) return name;
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  return out + "\"";
}

std::string LiteralText(const Literal& l) {
  switch (l.kind) {
    case Literal::Kind::kNull: return "NULL";
    case Literal::Kind::kBool: return l.text == "true" ? "TRUE" : "FALSE";
    case Literal::Kind::kNumber: return l.text;
    case Literal::Kind::kString: {
      std::string out = "'";
      for (char c : l.text) {
        if (c == '\'') out.push_back('\'');
        out.push_back(c);
      }
      return out + "'";
    }
  }
  return "?";
}

// ---- Lexer ----

struct Token {
  enum class Type { kEnd, kIdent, kQuotedIdent, kString, kNumber, kOp, kLParen, kRParen, kComma };
  Type type = Type::kEnd;
  std::string text;   // identifier/string/number text, operator
  size_t pos = 0;     // 0-based offset in the input
  std::string upper;  // kIdent: upper-cased (keyword matching)
};

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Result<ExprPtr> Parse() {
    RAP_RETURN_NOT_OK(Lex());
    RAP_ASSIGN_OR_RETURN(ExprPtr e, ParseOr(0));
    if (Peek().type != Token::Type::kEnd) return Error(Peek(), "AND, OR or the end of the filter");
    return e;
  }

 private:
  Status ErrorAt(size_t pos, const std::string& message) const {
    std::string caret(pos, ' ');
    // Keep tabs so the caret lines up under tab-indented text.
    for (size_t i = 0; i < pos && i < text_.size(); ++i) {
      if (text_[i] == '\t') caret[i] = '\t';
    }
    return Status::InvalidArgument("filter: " + message + " at character " + std::to_string(pos + 1) + "\n  " +
                                   std::string(text_) + "\n  " + caret + "^");
  }

  Status Error(const Token& t, const std::string& expected) const {
    std::string found = t.type == Token::Type::kEnd ? "the end of the filter" : "'" + TokenText(t) + "'";
    return ErrorAt(t.pos, "expected " + expected + " but found " + found);
  }

  std::string TokenText(const Token& t) const {
    switch (t.type) {
      case Token::Type::kString: return LiteralText(StringLit(t.text));
      case Token::Type::kQuotedIdent: return "\"" + t.text + "\"";
      default: return t.text;
    }
  }

  Status Lex() {
    size_t i = 0;
    while (i < text_.size()) {
      char c = text_[i];
      if (std::isspace(static_cast<unsigned char>(c))) {
        ++i;
        continue;
      }
      Token t;
      t.pos = i;
      if (c == '(' || c == ')' || c == ',') {
        t.type = c == '(' ? Token::Type::kLParen : c == ')' ? Token::Type::kRParen : Token::Type::kComma;
        t.text = std::string(1, c);
        ++i;
      } else if (c == '\'' || c == '"' || c == '`') {
        t.type = c == '\'' ? Token::Type::kString : Token::Type::kQuotedIdent;
        size_t j = i + 1;
        bool closed = false;
        while (j < text_.size()) {
          if (text_[j] == c) {
            if (j + 1 < text_.size() && text_[j + 1] == c) {  // doubled quote = the quote itself
              t.text.push_back(c);
              j += 2;
              continue;
            }
            closed = true;
            ++j;
            break;
          }
          t.text.push_back(text_[j++]);
        }
        if (!closed) return ErrorAt(i, std::string("unterminated ") + (c == '\'' ? "string" : "quoted name") +
                                           " (expected a closing " + c + ")");
        i = j;
      } else if (std::isdigit(static_cast<unsigned char>(c)) || c == '.' ||
                 ((c == '-' || c == '+') && i + 1 < text_.size() &&
                  (std::isdigit(static_cast<unsigned char>(text_[i + 1])) || text_[i + 1] == '.'))) {
        t.type = Token::Type::kNumber;
        size_t j = i + 1;
        while (j < text_.size()) {
          char d = text_[j];
          if (std::isdigit(static_cast<unsigned char>(d)) || d == '.') {
            ++j;
          } else if ((d == 'e' || d == 'E') && j + 1 < text_.size()) {
            ++j;
            if (text_[j] == '+' || text_[j] == '-') ++j;
          } else {
            break;
          }
        }
        t.text = std::string(text_.substr(i, j - i));
        if (!columnar::ParseDouble(t.text)) return ErrorAt(i, "malformed number '" + t.text + "'");
        if (j < text_.size() && IsIdentChar(text_[j])) return ErrorAt(j, "expected an operator or space after a number");
        i = j;
      } else if (IsIdentStart(c)) {
        t.type = Token::Type::kIdent;
        size_t j = i;
        while (j < text_.size() && IsIdentChar(text_[j])) ++j;
        t.text = std::string(text_.substr(i, j - i));
        for (char ch : t.text) t.upper.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(ch))));
        i = j;
      } else if (c == '=' || c == '!' || c == '<' || c == '>') {
        t.type = Token::Type::kOp;
        std::string two(text_.substr(i, 2));
        if (two == "==" || two == "!=" || two == "<>" || two == "<=" || two == ">=") {
          t.text = two;
          i += 2;
        } else if (c == '!') {
          return ErrorAt(i, "expected '!=' (a lone '!' is not an operator)");
        } else {
          t.text = std::string(1, c);
          ++i;
        }
      } else {
        return ErrorAt(i, std::string("unexpected character '") + c + "'");
      }
      tokens_.push_back(std::move(t));
    }
    Token end;
    end.pos = text_.size();
    tokens_.push_back(end);
    return Status::OK();
  }

  const Token& Peek(size_t ahead = 0) const {
    size_t k = std::min(next_ + ahead, tokens_.size() - 1);
    return tokens_[k];
  }
  const Token& Take() {
    const Token& t = tokens_[next_];
    if (next_ + 1 < tokens_.size()) ++next_;
    return t;
  }
  bool IsKeyword(const Token& t, const char* kw) const { return t.type == Token::Type::kIdent && t.upper == kw; }
  bool IsReserved(const Token& t) const {
    static const char* kReserved[] = {"AND", "OR", "NOT", "IN", "IS", "NULL", "TRUE", "FALSE"};
    for (const char* kw : kReserved) {
      if (IsKeyword(t, kw)) return true;
    }
    return false;
  }

  static constexpr int kMaxDepth = 200;

  Result<ExprPtr> ParseOr(int depth) {
    RAP_ASSIGN_OR_RETURN(ExprPtr left, ParseAnd(depth));
    while (IsKeyword(Peek(), "OR")) {
      Take();
      RAP_ASSIGN_OR_RETURN(ExprPtr right, ParseAnd(depth));
      left = MakeOr(std::move(left), std::move(right));
    }
    return left;
  }

  Result<ExprPtr> ParseAnd(int depth) {
    RAP_ASSIGN_OR_RETURN(ExprPtr left, ParseFactor(depth));
    while (IsKeyword(Peek(), "AND")) {
      Take();
      RAP_ASSIGN_OR_RETURN(ExprPtr right, ParseFactor(depth));
      left = MakeAnd(std::move(left), std::move(right));
    }
    return left;
  }

  Result<ExprPtr> ParseFactor(int depth) {
    if (depth > kMaxDepth) return ErrorAt(Peek().pos, "filter nested more than 200 levels deep");
    if (IsKeyword(Peek(), "NOT")) {
      Take();
      RAP_ASSIGN_OR_RETURN(ExprPtr inner, ParseFactor(depth + 1));
      return MakeNot(std::move(inner));
    }
    if (Peek().type == Token::Type::kLParen) {
      Take();
      RAP_ASSIGN_OR_RETURN(ExprPtr inner, ParseOr(depth + 1));
      if (Peek().type != Token::Type::kRParen) return Error(Peek(), "')'");
      Take();
      return inner;
    }
    return ParsePredicate();
  }

  bool IsLiteralStart(const Token& t) const {
    return t.type == Token::Type::kString || t.type == Token::Type::kNumber || IsKeyword(t, "TRUE") ||
           IsKeyword(t, "FALSE") || IsKeyword(t, "NULL") ||
           ((IsKeyword(t, "DATE") || IsKeyword(t, "TIMESTAMP")) && Peek(1).type == Token::Type::kString);
  }

  Result<Literal> ParseLiteral() {
    const Token& t = Peek();
    if (t.type == Token::Type::kString) return StringLit(Take().text);
    if (t.type == Token::Type::kNumber) return NumberLit(Take().text);
    if (IsKeyword(t, "TRUE") || IsKeyword(t, "FALSE")) {
      bool v = IsKeyword(t, "TRUE");
      Take();
      return Literal{Literal::Kind::kBool, v ? "true" : "false"};
    }
    if (IsKeyword(t, "NULL")) {
      Take();
      return Literal{};
    }
    if ((IsKeyword(t, "DATE") || IsKeyword(t, "TIMESTAMP")) && Peek(1).type == Token::Type::kString) {
      Take();
      return StringLit(Take().text);
    }
    return Error(t, "a literal (number, 'string', TRUE, FALSE, NULL)");
  }

  Result<CompareOp> ParseOp() {
    const Token& t = Peek();
    if (t.type != Token::Type::kOp) return Error(t, "a comparison (=, !=, <, <=, >, >=), IN or IS");
    Take();
    if (t.text == "=" || t.text == "==") return CompareOp::kEq;
    if (t.text == "!=" || t.text == "<>") return CompareOp::kNe;
    if (t.text == "<") return CompareOp::kLt;
    if (t.text == "<=") return CompareOp::kLe;
    if (t.text == ">") return CompareOp::kGt;
    return CompareOp::kGe;
  }

  static CompareOp Flip(CompareOp op) {
    switch (op) {
      case CompareOp::kLt: return CompareOp::kGt;
      case CompareOp::kLe: return CompareOp::kGe;
      case CompareOp::kGt: return CompareOp::kLt;
      case CompareOp::kGe: return CompareOp::kLe;
      default: return op;
    }
  }

  Result<ExprPtr> ParsePredicate() {
    const Token& first = Peek();
    if (IsLiteralStart(first)) {  // literal op column
      RAP_ASSIGN_OR_RETURN(Literal lit, ParseLiteral());
      RAP_ASSIGN_OR_RETURN(CompareOp op, ParseOp());
      RAP_ASSIGN_OR_RETURN(std::string column, ParseColumn());
      return MakeCompare(std::move(column), Flip(op), std::move(lit));
    }
    RAP_ASSIGN_OR_RETURN(std::string column, ParseColumn());
    const Token& t = Peek();
    if (IsKeyword(t, "IS")) {
      Take();
      bool negated = false;
      if (IsKeyword(Peek(), "NOT")) {
        Take();
        negated = true;
      }
      if (!IsKeyword(Peek(), "NULL")) return Error(Peek(), negated ? "NULL" : "NULL or NOT NULL");
      Take();
      return MakeIsNull(std::move(column), negated);
    }
    bool negated = false;
    if (IsKeyword(t, "NOT")) {
      if (!IsKeyword(Peek(1), "IN") && !IsKeyword(Peek(1), "BETWEEN") && !IsKeyword(Peek(1), "LIKE")) {
        return Error(Peek(1), "IN, BETWEEN or LIKE after NOT");
      }
      Take();
      negated = true;
    }
    if (IsKeyword(Peek(), "BETWEEN") || IsKeyword(Peek(), "LIKE")) {
      RAP_ASSIGN_OR_RETURN(ExprPtr e, IsKeyword(Peek(), "LIKE") ? ParseLike(column) : ParseBetween(column));
      return negated ? MakeNot(std::move(e)) : e;
    }
    if (IsKeyword(Peek(), "IN")) {
      Take();
      if (Peek().type != Token::Type::kLParen) return Error(Peek(), "'(' after IN");
      Take();
      std::vector<Literal> values;
      while (true) {
        RAP_ASSIGN_OR_RETURN(Literal lit, ParseLiteral());
        values.push_back(std::move(lit));
        if (Peek().type == Token::Type::kComma) {
          Take();
          continue;
        }
        if (Peek().type == Token::Type::kRParen) {
          Take();
          break;
        }
        return Error(Peek(), "',' or ')' in the IN list");
      }
      return MakeIn(std::move(column), std::move(values), negated);
    }
    RAP_ASSIGN_OR_RETURN(CompareOp op, ParseOp());
    RAP_ASSIGN_OR_RETURN(Literal lit, ParseLiteral());
    return MakeCompare(std::move(column), op, std::move(lit));
  }

  // `c BETWEEN a AND b`: c >= a AND c <= b.
  Result<ExprPtr> ParseBetween(const std::string& column) {
    Take();
    RAP_ASSIGN_OR_RETURN(Literal lo, ParseLiteral());
    if (!IsKeyword(Peek(), "AND")) return Error(Peek(), "AND in BETWEEN ... AND ...");
    Take();
    RAP_ASSIGN_OR_RETURN(Literal hi, ParseLiteral());
    return MakeAnd(MakeCompare(column, CompareOp::kGe, std::move(lo)),
                   MakeCompare(column, CompareOp::kLe, std::move(hi)));
  }

  // `c LIKE 'p%'` (a byte prefix): c >= 'p' AND c < p' (p without trailing 0xFF bytes, last byte + 1;
  // no upper bound when nothing is left); `c LIKE 'text'`: c = 'text'. Other patterns are refused.
  Result<ExprPtr> ParseLike(const std::string& column) {
    Take();
    const Token& t = Peek();
    if (t.type != Token::Type::kString) return Error(t, "a 'pattern' string after LIKE");
    std::string prefix = t.text;
    const bool trailing = !prefix.empty() && prefix.back() == '%';
    if (trailing) prefix.pop_back();
    if (prefix.find_first_of("%_\\") != std::string::npos) {
      return Error(t, "a prefix pattern 'text%' (LIKE supports no other wildcard, no '_' and no escape)");
    }
    Take();
    if (!trailing) return MakeCompare(column, CompareOp::kEq, StringLit(prefix));
    ExprPtr lo = MakeCompare(column, CompareOp::kGe, StringLit(prefix));
    std::string next = prefix;
    while (!next.empty() && static_cast<unsigned char>(next.back()) == 0xFF) next.pop_back();
    if (next.empty()) return lo;
    next.back() = static_cast<char>(static_cast<unsigned char>(next.back()) + 1);
    return MakeAnd(std::move(lo), MakeCompare(column, CompareOp::kLt, StringLit(next)));
  }

  Result<std::string> ParseColumn() {
    const Token& t = Peek();
    if (t.type == Token::Type::kQuotedIdent) return Take().text;
    if (t.type == Token::Type::kIdent && !IsReserved(t)) return Take().text;
    return Error(t, "a column name");
  }

  std::string_view text_;
  std::vector<Token> tokens_;
  size_t next_ = 0;
};

void CollectColumns(const Expr& e, std::vector<std::string>* out) {
  if (e.kind == Expr::Kind::kAnd || e.kind == Expr::Kind::kOr || e.kind == Expr::Kind::kNot) {
    for (const ExprPtr& c : e.children) CollectColumns(*c, out);
    return;
  }
  for (const std::string& s : *out) {
    if (s == e.column) return;
  }
  out->push_back(e.column);
}

}  // namespace

std::string Expr::ToString() const {
  switch (kind) {
    case Kind::kCompare:
      return QuoteColumn(column) + " " + OpText(op) + " " + LiteralText(values.at(0));
    case Kind::kIn: {
      std::string out = QuoteColumn(column) + (negated ? " NOT IN (" : " IN (");
      for (size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + LiteralText(values[i]);
      return out + ")";
    }
    case Kind::kIsNull:
      return QuoteColumn(column) + (negated ? " IS NOT NULL" : " IS NULL");
    case Kind::kAnd:
      return "(" + children.at(0)->ToString() + " AND " + children.at(1)->ToString() + ")";
    case Kind::kOr:
      return "(" + children.at(0)->ToString() + " OR " + children.at(1)->ToString() + ")";
    case Kind::kNot:
      return "NOT " + children.at(0)->ToString();
  }
  return "?";
}

Result<ExprPtr> ParseExpr(std::string_view text) {
  Parser parser(text);
  return parser.Parse();
}

std::vector<std::string> ReferencedColumns(const Expr& expr) {
  std::vector<std::string> out;
  CollectColumns(expr, &out);
  return out;
}

}  // namespace rap::read
