package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// LLM is an OpenAI-compatible chat-completions endpoint the agent asks to rewrite free-form questions
// into its grammar. The API key is sent as a bearer token and never logged or returned.
type LLM struct {
	BaseURL string // e.g. https://api.openai.com/v1 (…/chat/completions is appended)
	Model   string
	APIKey  string
	HTTP    *http.Client // nil: 20 s timeout
}

const rewritePrompt = "You translate a user's request to a Shariah-screening terminal into exactly one command of this grammar, " +
	"and reply with the command only, no other text. " + Help + " Use ticker symbols in capitals. If the request fits none, reply: help"

// Rewrite asks the model for a command.
func (l *LLM) Rewrite(ctx context.Context, input string) (string, error) {
	body, _ := json.Marshal(map[string]any{
		"model":       l.Model,
		"temperature": 0,
		"max_tokens":  60,
		"messages": []map[string]string{
			{"role": "system", "content": rewritePrompt},
			{"role": "user", "content": input},
		},
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(l.BaseURL, "/")+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	if l.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+l.APIKey)
	}
	client := l.HTTP
	if client == nil {
		client = &http.Client{Timeout: 20 * time.Second}
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", fmt.Errorf("chat endpoint unreachable")
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("chat endpoint answered HTTP %d", resp.StatusCode)
	}
	var out struct {
		Choices []struct {
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(raw, &out); err != nil || len(out.Choices) == 0 {
		return "", fmt.Errorf("chat endpoint answered no choice")
	}
	cmd := strings.TrimSpace(out.Choices[0].Message.Content)
	cmd = strings.Trim(cmd, "`\"' \n")
	if i := strings.IndexByte(cmd, '\n'); i >= 0 {
		cmd = cmd[:i]
	}
	if len(cmd) > MaxInput {
		cmd = cmd[:MaxInput]
	}
	return cmd, nil
}
